import { asRoot, describeRequiring, goOnPath } from '@sandbox/testing';
import { pino } from 'pino';

const GO = goOnPath();

/**
 * `describe` for tests against the real kube-apiserver, which need a Go toolchain on PATH: the
 * binaries are built on first use, which takes minutes on a fresh machine
 * (`node --import tsx tools/kube-harness/src/build/main.ts` builds them beforehand).
 */
export const describeWithKube = describeRequiring(GO);

/** Pod runner tests run sandboxes with the local driver, which needs root (namespaces, iptables). */
export const describeWithKubeAsRoot = describeRequiring(GO, asRoot);

/** First use may build kube-apiserver, etcd and kustomize: minutes on a fresh machine. */
export const HARNESS_START_TIMEOUT_MS = 30 * 60_000;

/** Quiet logs for tests: errors only. */
export const testLogger = pino({ level: 'error' });
