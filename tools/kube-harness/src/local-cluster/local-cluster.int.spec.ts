import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardProcessGroup } from '@sandbox/process';
import { runCommand } from '@sandbox/sandbox-local';
import { testLogger } from '../test-support/describe-with-kube.fixture';
import { clusterPids } from './cleanup-cluster';
import { CLUSTER_DIR, CLUSTER_NETWORK } from './cluster-layout';
import { planTable } from './host-state';
import { startLocalCluster, type LocalCluster } from './local-cluster';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const NS = 'local-cluster-test';
// Builds (first use) and start; a fresh machine builds for many minutes.
const START_TIMEOUT_MS = 60 * 60_000;

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The example app's image, written as an OCI archive by the repository's image tool. */
async function exampleAppArchive(outDir: string): Promise<{ archive: string; image: string }> {
  const result = await runCommand(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'tools/images/src/main.ts'), '--out', outDir, 'example-app'],
    { timeoutMs: 15 * 60_000 },
  );
  const image = /example-app: (\S+)/.exec(result.stdout)?.[1];
  if (!image) throw new Error(`no image tag in: ${result.stdout}`);
  return { archive: join(outDir, 'sandbox-example-app.tar'), image };
}

function deployment(name: string, image: string): object {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          runtimeClassName: 'gvisor',
          containers: [
            {
              name: 'app',
              image,
              imagePullPolicy: 'Never',
              ports: [{ containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1 },
            },
          ],
        },
      },
    },
  };
}

function httpStatus(url: string, timeoutMs = 3_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** A Node one-liner run inside the client pod: prints the HTTP status of a GET, or the error code. */
const fetchScript = (url: string): string =>
  `fetch(${JSON.stringify(url)},{signal:AbortSignal.timeout(3000)}).then(r=>console.log(r.status),e=>console.log('ERR',e.cause?.code??e.name))`;

describe('local cluster: a real one-node Kubernetes with gVisor pods', () => {
  let cluster: LocalCluster;
  let imageDir = '';
  let image = '';
  const kubectl = (args: string[], input?: string, timeoutMs = 120_000) =>
    runCommand(cluster.kubectlPath, ['--kubeconfig', cluster.kubeconfigPath, ...args], { input, timeoutMs });
  const execIn = async (deploy: string, command: string[]): Promise<string> =>
    (
      await kubectl(['-n', NS, 'exec', `deploy/${deploy}`, '--', ...command], undefined, 60_000)
    ).stdout.trim();
  const nodeIn = (deploy: string, script: string): Promise<string> =>
    execIn(deploy, ['/usr/local/bin/node', '-e', script]);

  beforeAll(async () => {
    imageDir = await mkdtemp(join(tmpdir(), 'local-cluster-images-'));
    const built = await exampleAppArchive(imageDir);
    image = built.image;
    cluster = await startLocalCluster({ logger: testLogger });
    await cluster.importImages([built.archive]);
    await kubectl(['apply', '-f', join(REPO, 'deploy/cluster/runtime-class.yaml')]);
    await kubectl(['create', 'namespace', NS]);
    const items = [deployment('web', image), deployment('client', image)];
    items.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: NS },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    for (const name of ['web', 'client']) {
      await kubectl(
        ['-n', NS, 'rollout', 'status', `deployment/${name}`, '--timeout=180s'],
        undefined,
        200_000,
      );
    }
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await cluster?.stop();
    await rm(imageDir, { recursive: true, force: true });
  }, 180_000);

  it('runs the pod under gVisor', async () => {
    const version = await nodeIn(
      'web',
      "process.stdout.write(require('fs').readFileSync('/proc/version','utf8'))",
    );
    expect(version).toMatch(/gvisor/i);
  }, 120_000);

  it('serves a ClusterIP Service to the host and to a pod, by cluster name', async () => {
    const ip = (
      await kubectl(['-n', NS, 'get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}'])
    ).stdout.trim();
    // kube-proxy programs a Service's rules within about a second of its endpoints turning ready.
    const fromHost = () =>
      httpStatus(`http://${ip}/healthz`).then(String, (error: Error) => `ERR ${error.message}`);
    expect(await pollUntil(fromHost, (out) => out === '200')).toBe('200');
    const resolved = await nodeIn(
      'client',
      `require('dns').lookup('web.${NS}.svc.cluster.local',(e,a)=>console.log(e?e.code:a))`,
    );
    expect(resolved).toBe(ip);
    expect(await nodeIn('client', fetchScript(`http://web.${NS}.svc.cluster.local/healthz`))).toBe('200');
  }, 120_000);

  it('enforces a deny-all NetworkPolicy between pods and lifts it when removed', async () => {
    const podIp = (
      await kubectl(['-n', NS, 'get', 'pod', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.podIP}'])
    ).stdout.trim();
    const url = `http://${podIp}:8080/healthz`;
    expect(await nodeIn('client', fetchScript(url))).toBe('200');
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny-all', namespace: NS },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    };
    await kubectl(['apply', '-f', '-'], JSON.stringify(policy));
    await expect(
      pollUntil(
        () => nodeIn('client', fetchScript(url)),
        (out) => out.startsWith('ERR'),
      ),
    ).resolves.toMatch(/^ERR/);
    await kubectl(['-n', NS, 'delete', 'networkpolicy', 'deny-all']);
    await expect(
      pollUntil(
        () => nodeIn('client', fetchScript(url)),
        (out) => out === '200',
      ),
    ).resolves.toBe('200');
  }, 120_000);

  it('leaves nothing on the host after stop()', async () => {
    const dir = cluster.dir;
    await cluster.stop();
    expect(await clusterPids(dir)).toEqual([]);
    for (const binary of ['iptables', 'ip6tables']) {
      for (const table of ['filter', 'nat', 'mangle']) {
        const listed = await runCommand(binary, ['-w', '5', '-t', table, '-S']);
        expect({ binary, table, ...planTable(listed.stdout) }).toEqual({
          binary,
          table,
          deleteRules: [],
          chains: [],
        });
      }
    }
    expect((await runCommand('ipset', ['list', '-n'])).stdout).not.toMatch(/KUBE-|kube-router/);
    for (const hierarchy of await readdir('/sys/fs/cgroup')) {
      expect(await exists(join('/sys/fs/cgroup', hierarchy, 'kubepods'))).toBe(false);
    }
    for (const path of ['/var/log/containers', '/var/lib/kubelet/device-plugins', dir]) {
      expect({ path, exists: await exists(path) }).toEqual({ path, exists: false });
    }
    const results = await readdir('/var/lib/cni/results').catch(() => []);
    expect(results.filter((name) => name.startsWith('sandbox-cluster-'))).toEqual([]);
    const link = await runCommand('ip', ['link', 'show', CLUSTER_NETWORK.bridge], { allowFailure: true });
    expect(link.exitCode).not.toBe(0);
    expect(await readFile('/proc/self/mountinfo', 'utf8')).not.toContain(dir);
  }, 180_000);
});

describe('local cluster: the watchdog when its owner is SIGKILLed', () => {
  it(
    'removes the whole cluster from the host',
    async () => {
      const owner = spawn(
        process.execPath,
        ['--import', 'tsx', join(REPO, 'tools/kube-harness/src/local-cluster/main.ts'), 'up'],
        {
          cwd: REPO,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      // If this test's own process dies first, the owner dies with it (and its watchdog then acts).
      const ownerGuard = guardProcessGroup(owner.pid as number);
      let output = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ready line: ${output}`)), 5 * 60_000);
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          if (output.includes('local cluster ready in')) {
            clearTimeout(timer);
            resolve();
          }
        };
        owner.stdout.on('data', onData);
        owner.stderr.on('data', onData);
        owner.once('exit', () => reject(new Error(`the owner exited: ${output}`)));
      });
      expect((await clusterPids(CLUSTER_DIR)).length).toBeGreaterThan(5);
      owner.kill('SIGKILL');
      ownerGuard.release();
      const gone = async (): Promise<string> => {
        const pids = await clusterPids(CLUSTER_DIR);
        const bridge = await runCommand('ip', ['link', 'show', CLUSTER_NETWORK.bridge], {
          allowFailure: true,
        });
        return pids.length === 0 && bridge.exitCode !== 0 && !(await exists(CLUSTER_DIR))
          ? 'gone'
          : `pids ${pids.join(' ')}`;
      };
      expect(await pollUntil(gone, (out) => out === 'gone', 60_000)).toBe('gone');
    },
    8 * 60_000,
  );
});

/** Calls `probe` every 250 ms until `done` says yes (within `timeoutMs`); returns the last answer. */
async function pollUntil(
  probe: () => Promise<string>,
  done: (out: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}
