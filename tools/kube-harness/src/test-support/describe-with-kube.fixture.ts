import { describe } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { pino } from 'pino';

/** `go version`, or undefined when no Go toolchain is on PATH. */
function goVersion(): string | undefined {
  const result = spawnSync('go', ['version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

const GO = goVersion();

/**
 * `describe` for tests against the real kube-apiserver. They skip only when no Go toolchain is on
 * PATH (and say so); otherwise the binaries are built on first use, which takes minutes on a fresh
 * machine (`node --import tsx tools/kube-harness/src/build/main.ts` builds them beforehand).
 */
export const describeWithKube: typeof describe = GO
  ? describe
  : Object.assign((name: string, fn: () => void) => {
      process.stderr.write(
        `SKIPPED "${name}": the kube-apiserver tests need a Go toolchain (go not found on PATH)\n`,
      );
      describe.skip(name, fn);
    }, describe);

/** Pod runner tests run sandboxes with the local driver, which needs root (namespaces, iptables). */
export const describeWithKubeAsRoot: typeof describe =
  process.getuid?.() === 0
    ? describeWithKube
    : Object.assign((name: string, fn: () => void) => {
        process.stderr.write(`SKIPPED "${name}": the pod runner needs root for the local gVisor driver\n`);
        describe.skip(name, fn);
      }, describe);

/** First use may build kube-apiserver, etcd and kustomize: minutes on a fresh machine. */
export const HARNESS_START_TIMEOUT_MS = 30 * 60_000;

/** Quiet logs for tests: errors only. */
export const testLogger = pino({ level: 'error' });
