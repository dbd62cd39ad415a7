import { describe, expect, it } from '@jest/globals';
import type { ErrorBody } from '@sandbox/protocol';
import { CliError, ServiceError, UnreachableError } from '../cli/errors';
import type { CliIo } from '../cli/runtime';
import { waitUntil } from './wait';

/** An io whose clock moves only when the wait sleeps. */
function manualIo(): CliIo {
  let now = 0;
  return {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: (async function* () {
      yield* [];
    })(),
    env: {},
    now: () => now,
    sleep: async (ms) => void (now += ms),
    readFile: () => '',
  };
}

const body = (code: 'unavailable' | 'not_found'): ErrorBody => ({
  error: { code, message: 'x' },
  requestId: 'r',
});

describe('waitUntil', () => {
  it('reports each change and returns when done', async () => {
    const seen: number[] = [];
    let polls = 0;
    const result = await waitUntil(manualIo(), {
      timeoutMs: 10_000,
      what: 'it',
      check: async () => ({ done: ++polls >= 4, progress: Math.min(polls, 2) }),
      report: (progress) => seen.push(progress),
    });
    expect([result, seen]).toEqual([2, [1, 2]]);
  });

  it('rides out an unreachable or 5xx service, saying so once per outage', async () => {
    const notes: string[] = [];
    const failures = [
      new UnreachableError('adapter', 'http://127.0.0.1:1', 'connection refused', undefined),
      new ServiceError('adapter', 503, body('unavailable')),
    ];
    let polls = 0;
    await waitUntil(manualIo(), {
      timeoutMs: 10_000,
      what: 'it',
      check: async () => {
        const failure = failures[polls++];
        if (failure) throw failure;
        return { done: true, progress: 'ok' };
      },
      report: () => undefined,
      retrying: (reason) => notes.push(reason),
    });
    expect(notes).toEqual([expect.stringMatching(/^cannot reach adapter/)]);
  });

  it('fails at once on a 4xx, and with the last progress at the deadline', async () => {
    const refused = new ServiceError('instance-manager', 404, body('not_found'));
    await expect(
      waitUntil(manualIo(), {
        timeoutMs: 5_000,
        what: 'it',
        check: () => Promise.reject(refused),
        report: () => undefined,
      }),
    ).rejects.toBe(refused);
    const timeout = waitUntil(manualIo(), {
      timeoutMs: 5_000,
      what: 'app/echo to be ready',
      check: async () => ({ done: false, progress: 1 }),
      report: () => undefined,
      describe: (progress) => `ready ${progress}/2`,
    });
    await expect(timeout).rejects.toThrow(
      new CliError('timed out after 5s waiting for app/echo to be ready (ready 1/2)'),
    );
  });
});
