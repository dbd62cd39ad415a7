import { describe, expect, it } from '@jest/globals';
import { sandboxRole } from './density-probes';

describe('sandboxRole', () => {
  it("names gVisor's processes by argv[0], conmon by comm, and the rest as the app's", () => {
    expect(sandboxRole('exe', 'runsc-sandbox')).toBe('sentry');
    expect(sandboxRole('exe', 'runsc-gofer')).toBe('gofer');
    expect(sandboxRole('conmon', '/usr/bin/conmon')).toBe('conmon');
    // systrap stubs have an empty command line
    expect(sandboxRole('exe', '')).toBe('app');
  });
});
