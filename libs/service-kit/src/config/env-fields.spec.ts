import { describe, expect, it } from '@jest/globals';
import {
  durationMsField,
  flagField,
  listenPortField,
  logLevelField,
  nodeEnvField,
  portField,
} from './env-fields';

describe('env fields', () => {
  it('coerces ports and applies the default', () => {
    expect(portField(7100).parse(undefined)).toBe(7100);
    expect(portField(7100).parse('7200')).toBe(7200);
    for (const bad of ['', '0', '65536', '80.5', 'http'])
      expect(portField(7100).safeParse(bad).success).toBe(false);
    expect(listenPortField(7100).parse('0')).toBe(0);
  });

  it('reads flags as words, so "false" is false', () => {
    expect(flagField(true).parse('false')).toBe(false);
    expect(flagField(false).parse('1')).toBe(true);
    expect(flagField(true).parse(undefined)).toBe(true);
    expect(flagField(false).safeParse('maybe').success).toBe(false);
  });

  it('accepts only known log levels and node environments', () => {
    expect(logLevelField().parse(undefined)).toBe('info');
    expect(logLevelField().safeParse('verbose').success).toBe(false);
    expect(nodeEnvField().parse(undefined)).toBe('production');
    expect(nodeEnvField().safeParse('staging').success).toBe(false);
  });

  it('bounds durations from below', () => {
    expect(durationMsField(5000, 1).parse('250')).toBe(250);
    expect(durationMsField(5000, 1).safeParse('0').success).toBe(false);
  });
});
