import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gvisorVersion, RUNSC_MODULE_DIR } from '@sandbox/sandbox-local';
import { GVISOR_SHIM_PROGRAM } from './ensure-node-binaries';

describe('GVISOR_SHIM_PROGRAM', () => {
  it('pins the same gVisor version as the runsc the local driver builds', async () => {
    const shim = await readFile(join(GVISOR_SHIM_PROGRAM.moduleDir, 'go.mod'), 'utf8');
    const runsc = await readFile(join(RUNSC_MODULE_DIR, 'go.mod'), 'utf8');
    expect(gvisorVersion(shim)).toBe(gvisorVersion(runsc));
  });
});
