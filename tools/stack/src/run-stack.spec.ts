import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@sandbox/testing';
import { runStack, type RunStackOptions } from './run-stack';
import type { StackInstances } from './stack-instances';
import { failingMember, fakeMember, memoryConsole } from './test-support/fake-member.fixture';

let dir: string;
let signals: EventEmitter;
let out: ReturnType<typeof memoryConsole>;
let delays: number[];
let clock: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stack-spec-'));
  signals = new EventEmitter();
  out = memoryConsole();
  delays = [];
  clock = 0;
});
afterEach(() => {
  signals.emit('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const options = (extra: Partial<RunStackOptions> = {}): RunStackOptions => ({
  console: out,
  signals,
  restartPolicy: { initialMs: 100, maxMs: 400, resetAfterMs: 10_000 },
  stopGraceMs: 5_000,
  now: () => clock,
  delay: async (ms) => void delays.push(ms),
  ...extra,
});
const waitForText = (text: string) =>
  waitFor(() => out.text().includes(text), { description: `output to contain "${text}"`, timeoutMs: 20_000 });
const pidOf = async (url: string) => Number(await (await fetch(url)).text());
const refuses = (url: string) =>
  fetch(url).then(
    () => false,
    () => true,
  );

describe('runStack', () => {
  it('restarts a member killed with SIGKILL, says so, and it serves again', async () => {
    const [first, second] = [await fakeMember('first', dir), await fakeMember('second', dir)];
    const run = runStack([first, second], options());
    await waitForText('all members are ready');
    const killed = await pidOf(second.url);
    process.kill(killed, 'SIGKILL');
    await waitForText('second exited (signal SIGKILL)');
    await waitForText(`second ready again at ${second.url} (restart 1)`);
    expect(await pidOf(second.url)).not.toBe(killed);
    const intros = out.text().match(/^second +\| second at http:\S+ \(pid \d+\)$/gm);
    expect(intros).toHaveLength(2);
    signals.emit('SIGINT');
    expect(await run).toBe(0);
  });

  it('waits longer after each crash in a row, up to the cap, and starts over after a healthy run', async () => {
    const member = await fakeMember('crasher', dir);
    const run = runStack([member], options());
    await waitForText('all members are ready');
    const crash = async (restart: number) => {
      await waitFor(() => fetch(member.url).then((response) => response.ok), {
        description: 'the member to serve',
        timeoutMs: 15_000,
      });
      await fetch(`${member.url}/crash`).catch(() => undefined);
      await waitForText(`(restart ${restart})\n`);
    };
    for (const restart of [1, 2, 3, 4]) await crash(restart);
    clock += 10_000;
    await crash(5);
    expect(delays).toEqual([100, 200, 400, 400, 100]);
    expect(out.text()).toContain('crasher exited (exit code 1) after 0s; restarting in 0.1s (restart 1)');
    signals.emit('SIGINT');
    expect(await run).toBe(0);
  });

  it('stops the members in reverse order on a signal', async () => {
    const members = [await fakeMember('a', dir), await fakeMember('b', dir), await fakeMember('c', dir)];
    const run = runStack(members, options());
    await waitForText('all members are ready');
    signals.emit('SIGTERM');
    expect(await run).toBe(0);
    expect(readFileSync(join(dir, 'stops'), 'utf8')).toBe('c\nb\na\n');
    expect(out.text()).toContain('SIGTERM received; stopping');
    expect(out.text()).toMatch(/stack +\| stopped\n$/);
  });

  it('stops what it started and exits 1 when a member fails to start', async () => {
    const first = await fakeMember('first', dir);
    const run = runStack([first, failingMember('broken', dir)], options());
    expect(await run).toBe(1);
    expect(out.text()).toContain(
      'start-up failed: gave up waiting for broken to be ready: it exited (exit code 2)',
    );
    expect(readFileSync(join(dir, 'stops'), 'utf8')).toBe('first\n');
    expect(await refuses(first.url)).toBe(true);
  });
});

describe('runStack with app instances', () => {
  const instances = (ids: string[], failing: string[] = []) => {
    const destroyed: string[] = [];
    const control: StackInstances = {
      prefix: 'tst',
      list: async () => ids.filter((id) => !destroyed.includes(id)),
      destroy: async (id) => {
        if (failing.includes(id)) throw new Error('device busy');
        destroyed.push(id);
      },
    };
    return { control, destroyed };
  };
  const runAndStop = async (extra: Partial<RunStackOptions>) => {
    const run = runStack([await fakeMember('manager', dir)], options(extra));
    await waitForText('all members are ready');
    signals.emit('SIGINT');
    return run;
  };

  it('removes the instances after stopping the members', async () => {
    const { control, destroyed } = instances(['i1', 'i2']);
    expect(await runAndStop({ instances: control })).toBe(0);
    expect(destroyed).toEqual(['i1', 'i2']);
    expect(out.text()).toContain('stopped 2 of 2 app instances; the next start replaces them');
    expect(out.text().indexOf('manager') < out.text().indexOf('stopped 2 of 2')).toBe(true);
  });

  it('keeps them when asked, saying how many and how the next start adopts them', async () => {
    const { control, destroyed } = instances(['i1', 'i2', 'i3']);
    expect(await runAndStop({ instances: control, keepInstances: true })).toBe(0);
    expect(destroyed).toEqual([]);
    expect(out.text()).toContain('kept 3 app instances running (prefix tst); the next start adopts');
  });

  it('says which instance it could not remove', async () => {
    const { control, destroyed } = instances(['i1', 'i2'], ['i2']);
    expect(await runAndStop({ instances: control })).toBe(0);
    expect(destroyed).toEqual(['i1']);
    expect(out.text()).toContain('could not remove app instance i2: device busy');
    expect(out.text()).toContain('stopped 1 of 2 app instances');
  });
});
