import { describe, expect, it } from '@jest/globals';
import { parseBenchArgs } from './args';

describe('parseBenchArgs', () => {
  it('reads the path part and the files', () => {
    expect(parseBenchArgs([])).toEqual({ filter: undefined, json: undefined, compare: undefined });
    expect(parseBenchArgs(['apps/adapter', '--json', 'a.json', '--compare', 'b.json'])).toEqual({
      filter: 'apps/adapter',
      json: 'a.json',
      compare: 'b.json',
    });
  });

  it('refuses unknown flags, a second path part and a flag without its file', () => {
    expect(() => parseBenchArgs(['--jsn', 'a'])).toThrow(/unexpected argument --jsn/);
    expect(() => parseBenchArgs(['a', 'b'])).toThrow(/unexpected argument b/);
    expect(() => parseBenchArgs(['--compare'])).toThrow(/--compare needs a file/);
    expect(() => parseBenchArgs(['--json', '--compare', 'x'])).toThrow(/--json needs a file/);
  });
});
