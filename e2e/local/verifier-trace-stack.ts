import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createO2RSubscriber, type O2RSubscriber } from '@sandbox/node-client';
import type { ChildProcessHandle } from '@sandbox/process';
import { HeartbeatResponseSchema } from '@sandbox/protocol';
import { findFreePort, startRedis, startTsProcess, waitFor, type RedisFixture } from '@sandbox/testing';

/** One line of Node's O2R channel for a runner: the events a report is joined to. */
export interface NodeEvent {
  runner_id: string;
  event: string;
  session_id: string;
}

const BOOTSTRAP = `trace-bootstrap-${randomBytes(8).toString('hex')}`;
/** The signer credential: the trace checks it never appears in any output. */
export const SIGNER_CREDENTIAL = `trace-signer-${randomBytes(8).toString('hex')}`;

const listening = (child: ChildProcessHandle, marker: string) =>
  waitFor(() => child.output().includes(marker) || undefined, { description: marker, timeoutMs: 60_000 });

/** Registers instances with Node as the adapter does, following each runner's O2R channel. */
function runnerRegistry(nodeUrl: string, events: NodeEvent[], subscribers: O2RSubscriber[]) {
  const credentials = new Map<string, string>();
  return {
    /** Registers an instance with Node as the adapter does, and follows its O2R channel. */
    async register(runner: {
      runnerId: string;
      app: string;
      port: number;
      metadata: string;
      singleShot?: boolean;
    }) {
      const reply = await fetch(`${nodeUrl}/runners/heartbeat`, {
        method: 'POST',
        headers: { authorization: BOOTSTRAP, 'content-type': 'application/json' },
        body: JSON.stringify({
          runner_id: runner.runnerId,
          app: runner.app,
          runner_url: `http://127.0.0.1:${runner.port}`,
          capacity: 4,
          metadata: runner.metadata,
          ...(runner.singleShot
            ? { mode: 'single-shot', price_info: { price: 0.002, currency: 'usd', unit: 'fixed' } }
            : { price_info: { price: 3600, currency: 'usd', unit: 'hour' } }),
        }),
      });
      const body = HeartbeatResponseSchema.parse(await reply.json());
      if (body.heartbeat_secret) credentials.set(runner.runnerId, body.heartbeat_secret);
      if (body.o2r)
        subscribers.push(
          createO2RSubscriber({
            url: body.o2r.url,
            onMessage: (message) => {
              if ('event' in message)
                events.push({
                  runner_id: runner.runnerId,
                  event: message.event,
                  session_id: message.session,
                });
            },
          }),
        );
    },
    /** Takes a runner out of Node's registry, as the adapter does when its instance goes away. */
    async unregister(runnerId: string) {
      await fetch(`${nodeUrl}/runners/${runnerId}/unregister`, {
        method: 'POST',
        headers: { authorization: credentials.get(runnerId) ?? '' },
      });
    },
  };
}

/**
 * The processes of a worked trace, all real: Redis, the Node simulator in paid mode, eval-responder
 * processes standing in for instances, and the verifier itself, run as `main.ts` runs it.
 */
export async function startTraceStack(verifierEnv: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'verifier-trace-'));
  const redis: RedisFixture = await startRedis();
  const env = { PATH: process.env['PATH'] ?? '' };
  const responderPorts = [await findFreePort(), await findFreePort()];
  const responders = new Map<number, ChildProcessHandle>();
  const startResponder = async (port: number) => {
    const child = startTsProcess('apps/eval-responder/src/main.ts', [], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    });
    responders.set(port, child);
    await listening(child, '"listening"');
  };
  for (const port of responderPorts) await startResponder(port);
  await writeFile(join(dir, 'bootstrap'), BOOTSTRAP);
  const nodePort = await findFreePort();
  const node = startTsProcess(
    'tools/node-sim/src/main.ts',
    [
      ...['--listen', `127.0.0.1:${nodePort}`, '--metrics-listen', `127.0.0.1:${await findFreePort()}`],
      ...['--bootstrap-secret-file', join(dir, 'bootstrap'), '--heartbeat-ttl', '600s'],
      ...['--paid', '--wei-per-usd', '1000000000000', '--ticket-win-prob', '1.0'],
      ...responderPorts.flatMap((port) => ['--runner-grant', `127.0.0.1:${port}`]),
    ],
    { env },
  );
  await listening(node, '"node-sim listening"');
  const nodeUrl = `http://127.0.0.1:${nodePort}`;
  const files = {
    signer: join(dir, 'signer'),
    key: join(dir, 'key'),
    admin: join(dir, 'admin'),
    read: join(dir, 'read'),
  };
  const adminToken = randomBytes(24).toString('hex');
  await writeFile(files.signer, SIGNER_CREDENTIAL);
  await writeFile(files.key, randomBytes(32).toString('hex'));
  await writeFile(files.admin, adminToken);
  await writeFile(files.read, randomBytes(24).toString('hex'));
  const verifierPort = await findFreePort();
  const verifier = startTsProcess('apps/verifier/src/main.ts', [], {
    env: {
      ...env,
      ...{ PORT: String(verifierPort), HOST: '127.0.0.1', DRAIN_DELAY_MS: '0', LOG_LEVEL: 'info' },
      ...{ REDIS_URL: redis.url, NODE_URL: nodeUrl, SIGNER_URL: nodeUrl, SCHEDULE_APPS: '' },
      ...{ SIGNER_SECRET_FILE: files.signer, SIGNING_KEY_FILE: files.key },
      ...{ ADMIN_TOKEN_FILE: files.admin, READ_TOKEN_FILE: files.read },
      ...verifierEnv,
    },
  });
  await listening(verifier, '"listening"');
  const events: NodeEvent[] = [];
  const subscribers: O2RSubscriber[] = [];
  const registry = runnerRegistry(nodeUrl, events, subscribers);
  return {
    nodeUrl,
    responderPorts,
    verifier,
    node,
    events,
    api: (path: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${verifierPort}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${adminToken}` },
      }),
    ...registry,
    /** Kills an instance's responder process and starts it again on the same port. */
    async restartResponder(port: number) {
      await responders.get(port)?.kill();
      await startResponder(port);
    },
    async stop() {
      await Promise.all(subscribers.map((subscriber) => subscriber.stop()));
      await verifier.stop();
      await node.stop();
      await Promise.all([...responders.values()].map((child) => child.stop()));
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type TraceStack = Awaited<ReturnType<typeof startTraceStack>>;
