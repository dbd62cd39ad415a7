import { describe, expect, it } from '@jest/globals';
import { DrainConfigSchema } from './config';

describe('DrainConfigSchema', () => {
  it('defaults to port 7103, a 6 h window and a 30 s quiet period', () => {
    const config = DrainConfigSchema.parse({ REPLACE_COMMAND: 'systemctl restart livepeer-node' });
    expect(config).toMatchObject({ PORT: 7103, DEFAULT_WINDOW: 21_600_000, DEFAULT_QUIET_PERIOD: 30_000 });
  });

  it('takes Go and ISO durations for the defaults', () => {
    const config = DrainConfigSchema.parse({
      REPLACE_COMMAND: 'x',
      DEFAULT_WINDOW: 'PT2H',
      DEFAULT_QUIET_PERIOD: '0s',
    });
    expect(config).toMatchObject({ DEFAULT_WINDOW: 7_200_000, DEFAULT_QUIET_PERIOD: 0 });
  });

  it('needs a command for the command driver and refuses a window over 12 h', () => {
    const result = DrainConfigSchema.safeParse({ DEFAULT_WINDOW: '13h' });
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['DEFAULT_WINDOW']);
    const missing = DrainConfigSchema.safeParse({});
    expect(missing.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['REPLACE_COMMAND']);
  });
});
