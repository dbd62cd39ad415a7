import { describe, expect, it } from '@jest/globals';
import { startChildProcess } from './child-process';
import { waitUntilReady } from './readiness';
import { isAlive, waitUntil } from './__fixtures__/process-probes';

const node = (script: string, env: Record<string, string> = {}) =>
  startChildProcess(process.execPath, ['-e', script], { env });

describe('startChildProcess', () => {
  it('keeps and reports each line by stream, and resolves the exit code', async () => {
    const lines: string[] = [];
    const child = startChildProcess(
      process.execPath,
      ['-e', 'console.log("out one"); console.error("err one"); process.exit(3)'],
      { onLine: (line, stream) => lines.push(`${stream}:${line}`) },
    );
    expect(await child.exited).toEqual({ code: 3, signal: null });
    expect(lines.sort()).toEqual(['stderr:err one', 'stdout:out one']);
    expect(child.stdout()).toBe('out one\n');
    expect(child.stderr()).toBe('err one\n');
    expect(child.isRunning()).toBe(false);
  });

  it('passes exactly the given environment', async () => {
    const child = node('console.log(JSON.stringify(process.env))', { ONLY: 'this' });
    await child.exited;
    expect(JSON.parse(child.stdout())).toEqual({ ONLY: 'this' });
  });

  it('reports a command that cannot start through exited', async () => {
    const exit = await startChildProcess('/nonexistent/command', []).exited;
    expect(exit.code).toBeNull();
    expect(exit.error).toMatch(/ENOENT/);
  });

  it('stops gracefully with SIGTERM', async () => {
    const child = node(
      'process.on("SIGTERM", () => { console.log("bye"); process.exit(0) }); console.log("up"); setInterval(() => {}, 1000)',
    );
    await waitForLine(child.stdout, 'up');
    expect(await child.stop(10_000)).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toContain('bye');
  });

  it('kills the whole group when SIGTERM is ignored past the grace period', async () => {
    const child = node(
      'const { spawn } = require("node:child_process");' +
        'const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });' +
        'process.on("SIGTERM", () => {}); console.log(grandchild.pid); setInterval(() => {}, 1000)',
    );
    const grandchild = Number(await waitForLine(child.stdout, /^\d+$/));
    expect(isAlive(grandchild)).toBe(true);
    expect(await child.stop(200)).toEqual({ code: null, signal: 'SIGKILL' });
    await waitUntil(() => !isAlive(grandchild));
  });

  it('kill() takes the whole group down at once', async () => {
    const child = node('setInterval(() => {}, 1000); console.log("up")');
    await waitForLine(child.stdout, 'up');
    expect(await child.kill()).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('waitForLine resolves a line printed before or after the call, and rejects when the child exits first', async () => {
    const child = node(
      'console.log("early"); setTimeout(() => console.log("late"), 100); setTimeout(() => {}, 300)',
    );
    expect(await child.waitForLine(() => true, 5_000)).toBe('early');
    expect(await child.waitForLine((line) => line === 'late', 5_000)).toBe('late');
    expect(await child.waitForLine((line) => line === 'early', 5_000)).toBe('early');
    await expect(child.waitForLine((line) => line === 'never', 5_000)).rejects.toThrow(
      /exited \(exit code 0\) before a matching line:\nearly\nlate/,
    );
  });
});

describe('waitUntilReady', () => {
  it('resolves once the probe passes', async () => {
    const child = node('setInterval(() => {}, 1000)');
    let polls = 0;
    await waitUntilReady(child, async () => ++polls === 3, {
      description: 'three polls',
      timeoutMs: 5_000,
      intervalMs: 10,
    });
    expect(polls).toBe(3);
    await child.kill();
  });

  it('fails at once, saying how and with the output, when the child exits first', async () => {
    const child = node('console.error("boom"); process.exit(4)');
    await expect(
      waitUntilReady(child, async () => false, {
        description: 'x to be ready',
        timeoutMs: 30_000,
        intervalMs: 10,
      }),
    ).rejects.toThrow('gave up waiting for x to be ready: it exited (exit code 4):\nboom');
  });

  it('fails after the timeout while the child runs', async () => {
    const child = node('setInterval(() => {}, 1000)');
    await expect(
      waitUntilReady(child, async () => false, { description: 'y', timeoutMs: 50, intervalMs: 10 }),
    ).rejects.toThrow('gave up waiting for y after 50 ms');
    await child.kill();
  });
});

async function waitForLine(read: () => string, match: string | RegExp): Promise<string> {
  let found: string | undefined;
  await waitUntil(() => {
    found = read()
      .split('\n')
      .find((line) => (typeof match === 'string' ? line === match : match.test(line)));
    return found !== undefined;
  });
  return found as string;
}
