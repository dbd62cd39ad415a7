import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import WebSocket from 'ws';
import type { CommandRunner } from './command-runner';
import { runCommand } from './command-runner';
import type { SandboxDriver, StartedInstance } from './local-driver';
import { createLocalDriver } from './local-driver';
import { NODE_IMAGE_ENV } from './images/node-app-image';
import { instanceNames } from './naming';
import { leftovers, NO_LEFTOVERS } from './test-support/leaks.fixture';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';
import { evalInInstance } from './test-support/sandbox-probe.fixture';
import { uniqueHost } from './test-support/unique-host.fixture';

/** This run's own names and addresses. */
const { prefix: PREFIX, subnet: SUBNET } = uniqueHost('sa');
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
/** What podman and the image put in the environment; everything else must come from the spec. */
/** What podman and the image itself set (the image: its port and host, and the allocator's setting). */
const BASELINE_ENV = [
  'PATH',
  'HOSTNAME',
  'HOME',
  'TERM',
  'container',
  'PORT',
  'HOST',
  ...Object.keys(NODE_IMAGE_ENV),
];
/** Set in the environment podman runs with, as a manager's own proxy settings: none may reach the app. */
const HOST_ENV = [
  'http_proxy=http://proxy-canary-3c9e1a.invalid:3128',
  'HTTPS_PROXY=http://proxy-canary-3c9e1a.invalid:3128',
  'no_proxy=proxy-canary-3c9e1a',
  'FTP_PROXY=http://proxy-canary-3c9e1a.invalid:21',
];
/** The real runner, with podman started under {@link HOST_ENV} (`env` sets it for that one process). */
const runWithProxyEnv: CommandRunner = (command, args, options) =>
  command === 'podman'
    ? runCommand('env', [...HOST_ENV, command, ...args], options)
    : runCommand(command, args, options);

let driver: SandboxDriver;
let image = '';
let instance: StartedInstance;

function wsRoundTrip(url: string, message: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('open', () => socket.send(message));
    socket.on('message', (data: Buffer) => {
      socket.close(1000);
      resolve(data.toString());
    });
    socket.on('error', reject);
  });
}

describeAsRoot('local driver with the example app under gVisor', () => {
  beforeAll(async () => {
    image = await exampleImage();
    driver = createLocalDriver({ logger: testLogger, prefix: PREFIX, subnet: SUBNET, run: runWithProxyEnv });
    instance = await driver.start(
      exampleSpec(image, { env: { GREETING: 'hello' }, labels: { app: 'example' } }),
    );
    await driver.waitForReady(instance, HEALTH);
  }, 120_000);

  afterAll(async () => {
    for (const found of await driver.list()) await driver.stop(found.instanceId);
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 60_000);

  it('serves HTTP from the sandbox to the host through the instance URL', async () => {
    const echoed = await fetch(`${instance.url}/echo`, { method: 'POST', body: 'from the host' });
    expect(await echoed.text()).toBe('from the host');
  });

  it('streams server-sent events to the host', async () => {
    const text = await (await fetch(`${instance.url}/sse?count=3&intervalMs=20`)).text();
    expect(text.match(/^event: tick$/gm)).toHaveLength(3);
    expect(text).toContain('event: end');
  });

  it('echoes WebSocket messages to the host', async () => {
    expect(await wsRoundTrip(`${instance.url.replace('http', 'ws')}/ws`, 'over websocket')).toBe(
      'over websocket',
    );
  });

  it('runs under runsc, unprivileged, on a read-only root with no host mounts', async () => {
    const report = JSON.parse(
      await evalInInstance(
        instanceNames(PREFIX, instance.instanceId).container,
        `const fs = require('node:fs');
         let rootWritable = true;
         try { fs.writeFileSync('/probe-file', 'x'); } catch { rootWritable = false; }
         console.log(JSON.stringify({
           kernel: fs.readFileSync('/proc/version', 'utf8'),
           uid: process.getuid(),
           rootWritable,
           mounts: fs.readFileSync('/proc/mounts', 'utf8').trim().split('\\n').map((line) => line.split(' ')[1]),
           memory: require('node:os').totalmem(),
         }));`,
      ),
    ) as { kernel: string; uid: number; rootWritable: boolean; mounts: string[]; memory: number };
    // gVisor presents its own kernel, not the host's.
    expect(report.kernel).not.toBe(await readFile('/proc/version', 'utf8'));
    expect(report.kernel).toMatch(/^Linux version \d/);
    expect(report.uid).toBe(65534);
    expect(report.rootWritable).toBe(false);
    expect([...report.mounts].sort()).toEqual([
      '/',
      '/dev',
      '/dev/pts',
      '/etc/hostname',
      '/proc',
      '/run',
      '/sys',
      '/tmp',
      '/var/tmp',
    ]);
    expect(report.memory).toBe(256 * 1024 * 1024);
  });

  it('gives the app only the spec environment: no credential or token of any kind', async () => {
    const env = JSON.parse(
      await evalInInstance(
        instanceNames(PREFIX, instance.instanceId).container,
        'console.log(JSON.stringify(process.env))',
      ),
    ) as Record<string, string>;
    expect(Object.keys(env).filter((key) => !BASELINE_ENV.includes(key))).toEqual(['GREETING']);
    expect(JSON.stringify(env)).not.toContain('proxy-canary');
    expect(Object.keys(env).filter((key) => /token|secret|credential|password|key|auth/i.test(key))).toEqual(
      [],
    );
    const secretsDirs = await evalInInstance(
      instanceNames(PREFIX, instance.instanceId).container,
      "console.log(['/run/secrets', '/var/run/secrets'].filter((dir) => require('node:fs').existsSync(dir)).length)",
    );
    expect(secretsDirs.trim()).toBe('0');
  });

  it('keeps the app logs', async () => {
    const logs = await driver.logs(instance.instanceId);
    expect(logs.some((line) => line.stream === 'stdout' && line.text.includes('"msg":"listening"'))).toBe(
      true,
    );
  });

  it('lists the instance with its labels and URL', async () => {
    const found = (await driver.list()).find((entry) => entry.instanceId === instance.instanceId);
    expect(found).toMatchObject({
      complete: true,
      url: instance.url,
      labels: { app: 'example' },
      containerState: 'running',
    });
  });

  it('removes every host object on stop, and a second stop is a no-op', async () => {
    const extra = await driver.start(exampleSpec(image));
    await driver.stop(extra.instanceId);
    await driver.stop(extra.instanceId);
    expect((await driver.list()).map((entry) => entry.instanceId)).toEqual([instance.instanceId]);
  });

  it('cleans up after a start that fails, and reports the failure', async () => {
    await expect(driver.start(exampleSpec('localhost/sandbox-no-such-image:0'))).rejects.toMatchObject({
      name: 'InstanceStartError',
    });
    expect((await driver.list()).map((entry) => entry.instanceId)).toEqual([instance.instanceId]);
  });

  it('refuses podman transports before anything is created on the host', async () => {
    await expect(driver.start(exampleSpec('oci-archive:app.tar'))).rejects.toMatchObject({
      name: 'InstanceSpecError',
      issues: [expect.objectContaining({ path: 'image' })],
    });
    expect((await driver.list()).map((entry) => entry.instanceId)).toEqual([instance.instanceId]);
  });

  it('stops waiting for readiness when the app exits', async () => {
    const failing = await driver.start(exampleSpec(image, { env: { PORT: 'not-a-port' } }));
    await expect(driver.waitForReady(failing, HEALTH, { timeoutMs: 20_000 })).rejects.toMatchObject({
      reason: 'exited',
    });
    await driver.stop(failing.instanceId);
  });
});
