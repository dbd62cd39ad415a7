import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gvisorVersion, RUNSC_MODULE_DIR } from './runsc-build';

describe('gvisorVersion', () => {
  it('reads the pinned gVisor version from our go.mod', () => {
    expect(gvisorVersion(readFileSync(join(RUNSC_MODULE_DIR, 'go.mod'), 'utf8'))).toMatch(
      /^v0\.0\.0-\d{14}-[0-9a-f]{12}$/,
    );
  });

  it('fails when gVisor is not required', () => {
    expect(() => gvisorVersion('module x\n\ngo 1.26\n')).toThrow('does not require');
  });
});
