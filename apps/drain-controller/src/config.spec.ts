import { describe, expect, it } from '@jest/globals';
import { DrainConfigSchema } from './config';

const FILES = { ADMIN_TOKEN_FILE: '/a', READ_TOKEN_FILE: '/r' };
const paths = (env: Record<string, string>) =>
  DrainConfigSchema.safeParse(env).error?.issues.map((issue) => issue.path.join('.'));

describe('DrainConfigSchema', () => {
  it('defaults to port 7103, a 6 h window and a 30 s quiet period', () => {
    const config = DrainConfigSchema.parse({ ...FILES, REPLACE_COMMAND: 'systemctl restart livepeer-node' });
    expect(config).toMatchObject({ PORT: 7103, DEFAULT_WINDOW: 21_600_000, DEFAULT_QUIET_PERIOD: 30_000 });
  });

  it('takes Go and ISO durations for the defaults', () => {
    const config = DrainConfigSchema.parse({
      ...FILES,
      REPLACE_COMMAND: 'x',
      DEFAULT_WINDOW: 'PT2H',
      DEFAULT_QUIET_PERIOD: '0s',
    });
    expect(config).toMatchObject({ DEFAULT_WINDOW: 7_200_000, DEFAULT_QUIET_PERIOD: 0 });
  });

  it('needs the token files, a command for the command driver, and a window of at most 12 h', () => {
    expect(paths({})).toEqual(['ADMIN_TOKEN_FILE', 'READ_TOKEN_FILE']);
    expect(paths({ ...FILES, REPLACE_COMMAND: 'x', DEFAULT_WINDOW: '13h' })).toEqual(['DEFAULT_WINDOW']);
    expect(paths(FILES)).toEqual(['REPLACE_COMMAND']);
    expect(paths({ ...FILES, ORCHESTRATOR_DRIVER: 'kubernetes' })).toBeUndefined();
  });

  it("reads the adapter's sessions view under its STATE_PREFIX, fresh within 5 s by default", () => {
    const config = DrainConfigSchema.parse({ ...FILES, REPLACE_COMMAND: 'x' });
    expect(config).toMatchObject({ ADAPTER_STATE_PREFIX: 'adapter', SESSIONS_VIEW_MAX_AGE_MS: 5_000 });
    expect(paths({ ...FILES, REPLACE_COMMAND: 'x', ADAPTER_STATE_PREFIX: 'a b' })).toEqual([
      'ADAPTER_STATE_PREFIX',
    ]);
    expect(paths({ ...FILES, REPLACE_COMMAND: 'x', SESSIONS_VIEW_MAX_AGE_MS: '500' })).toEqual([
      'SESSIONS_VIEW_MAX_AGE_MS',
    ]);
  });
});
