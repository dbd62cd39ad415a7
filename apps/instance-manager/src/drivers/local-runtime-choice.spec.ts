import { describe, expect, it, jest } from '@jest/globals';
import { pino } from 'pino';
import type { RuntimeCandidate } from '@sandbox/sandbox-local';
import { DEBIAN_RUNSC, chooseLocalRuntime } from './local-runtime-choice';

const logger = pino({ level: 'silent' });
const cached = { path: '/cache/runsc', version: 'v1', built: false };
const firstOf = async (_run: unknown, candidates: readonly RuntimeCandidate[]) => candidates[0];

describe('chooseLocalRuntime', () => {
  it('prefers the cached systrap build and keeps Debian runsc as the fallback', async () => {
    const choose = jest.fn(firstOf);
    const chosen = await chooseLocalRuntime('auto', false, {
      logger,
      findCached: async () => cached,
      choose,
    });
    expect(chosen).toEqual({ runscPath: '/cache/runsc', runtimeFlags: ['platform=systrap'] });
    expect(choose.mock.calls[0]?.[1]).toEqual([chosen, DEBIAN_RUNSC]);
  });

  it('falls back to Debian runsc when nothing is cached or the canary fails', async () => {
    expect(
      await chooseLocalRuntime('auto', false, { logger, findCached: async () => undefined, choose: firstOf }),
    ).toEqual(DEBIAN_RUNSC);
    const onlyDebian = async (_run: unknown, candidates: readonly RuntimeCandidate[]) =>
      candidates.find((c) => c === DEBIAN_RUNSC);
    expect(
      await chooseLocalRuntime('auto', false, { logger, findCached: async () => cached, choose: onlyDebian }),
    ).toEqual(DEBIAN_RUNSC);
  });

  it('builds only when asked, and fails when no candidate works', async () => {
    const build = jest.fn(async () => cached);
    await chooseLocalRuntime('systrap', true, { logger, build, choose: firstOf });
    expect(build).toHaveBeenCalledTimes(1);
    await expect(
      chooseLocalRuntime('debian', false, { logger, choose: async () => undefined }),
    ).rejects.toThrow('no runsc candidate');
  });
});
