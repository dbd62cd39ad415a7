import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimProcess } from './testing/sim-process';
import { spawnSim } from './testing/sim-process';

let dir: string;
let secretFile: string;
let newlineFile: string;
const running: SimProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-sim-main-'));
  secretFile = join(dir, 'bootstrap');
  newlineFile = join(dir, 'bootstrap-nl');
  writeFileSync(secretFile, 'exact-bytes');
  writeFileSync(newlineFile, 'exact-bytes\n');
});
afterAll(async () => {
  await Promise.all(running.map((sim) => sim.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

const loopback = ['--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];

function start(args: string[]): SimProcess {
  const sim = spawnSim(args);
  running.push(sim);
  return sim;
}

async function beat(url: string, auth: string): Promise<number> {
  const reply = await fetch(`${url}/runners/heartbeat`, {
    method: 'POST',
    headers: { Authorization: auth },
    body: JSON.stringify({ runner_id: 'proc-1', runner_url: 'http://10.0.0.1', app: 'a' }),
  });
  return reply.status;
}

describe('node-sim process', () => {
  it.each<[string, string[], RegExp]>([
    ['an unknown flag', ['--bogus'], /Unknown option '--bogus'/u],
    ['a missing bootstrap secret file flag', [...loopback], /--bootstrap-secret-file is required/u],
    [
      'an unreadable secret file',
      [...loopback, '--bootstrap-secret-file', '/nonexistent/secret'],
      /cannot read/u,
    ],
    [
      'a TTL not above the interval',
      ['--bootstrap-secret-file', 'x', '--heartbeat-interval', '5s', '--heartbeat-ttl', '5s'],
      /--heartbeat-ttl must be greater/u,
    ],
    [
      'a duration without unit',
      ['--bootstrap-secret-file', 'x', '--heartbeat-interval', '5'],
      /--heartbeat-interval must be a positive Go duration/u,
    ],
    [
      'a malformed listen address',
      ['--bootstrap-secret-file', 'x', '--listen', 'localhost'],
      /--listen must be host:port/u,
    ],
    [
      'a non-loopback metrics listener',
      ['--bootstrap-secret-file', 'x', '--metrics-listen', '0.0.0.0:8936'],
      /loopback/u,
    ],
    ['--paid without a rate', ['--bootstrap-secret-file', 'x', '--paid'], /--wei-per-usd/u],
    [
      'a bad grant',
      ['--bootstrap-secret-file', 'x', '--runner-grant', 'http://h:1'],
      /--runner-grant must be exact host:port/u,
    ],
  ])('exits 2 with a clear message on %s', async (_name, args, message) => {
    const sim = start(args);
    expect(await sim.exited).toBe(2);
    expect(sim.stderr()).toMatch(message);
  });

  it('uses the secret file as exact bytes, keeps state in memory only, and exits 0 on SIGTERM', async () => {
    const first = start(['--bootstrap-secret-file', secretFile, ...loopback]);
    const { publicUrl, metricsUrl } = await first.ready();
    expect(await beat(publicUrl, 'exact-bytes')).toBe(200);
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toContain('livepeer_runners 1');
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = start(['--bootstrap-secret-file', secretFile, ...loopback]);
    const restarted = await second.ready();
    expect(await (await fetch(`${restarted.metricsUrl}/metrics`)).text()).toContain('livepeer_runners 0');
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('does not trim a trailing newline from the secret file', async () => {
    const sim = start(['--bootstrap-secret-file', newlineFile, ...loopback]);
    const { publicUrl } = await sim.ready();
    expect(await beat(publicUrl, 'exact-bytes')).toBe(401);
    expect(await sim.stop()).toBe(0);
  });
});
