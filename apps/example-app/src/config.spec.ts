import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8080', () => {
    expect(loadConfig({})).toEqual({ host: '127.0.0.1', port: 8080 });
  });

  it('reads PORT and HOST', () => {
    expect(loadConfig({ PORT: '9000', HOST: '0.0.0.0' })).toEqual({ host: '0.0.0.0', port: 9000 });
  });

  it('lists every problem', () => {
    try {
      loadConfig({ PORT: '70000', HOST: 'bad host' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toHaveLength(2);
    }
  });
});
