import { startChildProcess, type ChildProcessHandle } from '@sandbox/process';
import type { Exec, ExecOptions } from './exec';

/** kubectl against one cluster (its kubeconfig file), with the admin's credentials. */
export interface Kubectl {
  readonly kubeconfig: string;
  /** The kubectl binary (create-secrets.sh and other scripts find it on PATH). */
  readonly path: string;
  run(args: readonly string[], options?: ExecOptions): Promise<string>;
  /** `kubectl get … -o json`, parsed. */
  json<T>(args: readonly string[]): Promise<T>;
  /** A Secret's key, decoded; kept in memory only (never printed, never on a command line). */
  secretValue(namespace: string, name: string, key: string): Promise<string>;
  /** `kubectl port-forward` in its own process group; resolves the local port once it forwards. */
  portForward(namespace: string, target: string, remotePort: number): Promise<PortForward>;
}

/** A running port-forward. */
export interface PortForward {
  readonly localPort: number;
  readonly url: string;
  stop(): Promise<void>;
}

const FORWARDING = /^Forwarding from 127\.0\.0\.1:(\d+) ->/;

/** A {@link Kubectl} for the cluster of `kubeconfig`. */
export function createKubectl(exec: Exec, kubectlPath: string, kubeconfig: string): Kubectl {
  const base = ['--kubeconfig', kubeconfig];
  const run = async (args: readonly string[], options: ExecOptions = {}) =>
    (await exec(kubectlPath, [...base, ...args], options)).stdout;
  const kubectl: Kubectl = {
    kubeconfig,
    path: kubectlPath,
    run,
    json: async <T>(args: readonly string[]) => JSON.parse(await run([...args, '-o', 'json'])) as T,
    secretValue: async (namespace, name, key) => {
      const secret = await kubectl.json<{ data?: Record<string, string> }>([
        '-n',
        namespace,
        'get',
        'secret',
        name,
      ]);
      const value = secret.data?.[key];
      if (value === undefined) throw new Error(`secret ${namespace}/${name} has no key ${key}`);
      return Buffer.from(value, 'base64').toString('utf8');
    },
    portForward: async (namespace, target, remotePort) => {
      const child: ChildProcessHandle = startChildProcess(
        kubectlPath,
        [...base, '-n', namespace, 'port-forward', '--address', '127.0.0.1', target, `:${remotePort}`],
        { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
      );
      const line = await child
        .waitForLine((text) => FORWARDING.test(text), 60_000)
        .catch(async (error: unknown) => {
          await child.kill();
          throw error;
        });
      const localPort = Number(FORWARDING.exec(line)?.[1]);
      return {
        localPort,
        url: `http://127.0.0.1:${localPort}`,
        stop: async () => {
          await child.stop(2_000);
        },
      };
    },
  };
  return kubectl;
}
