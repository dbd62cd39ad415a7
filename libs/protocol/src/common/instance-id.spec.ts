import { describe, expect, it } from '@jest/globals';
import { InstanceIdSchema } from './ids.schema';
import { INSTANCE_ID_PATTERN, MintedInstanceIdSchema, newInstanceId, parseInstanceId } from './instance-id';

describe('the minted instance id format', () => {
  it('generates ids that fit the pattern', () => {
    for (let round = 0; round < 50; round += 1) expect(newInstanceId()).toMatch(INSTANCE_ID_PATTERN);
  });

  it('maps each random byte onto the 36 letters and digits', () => {
    const bytes = Uint8Array.from([0, 25, 26, 35, 36, 71, 255, 1, 2, 3]);
    expect(newInstanceId(() => bytes)).toBe('az09a9dbcd');
  });

  it('is a wire instance id, and only ten lowercase letters or digits are minted ones', () => {
    const minted = newInstanceId();
    expect(InstanceIdSchema.safeParse(minted).success).toBe(true);
    expect(MintedInstanceIdSchema.parse(minted)).toBe(minted);
    for (const other of ['example-app-7f3k2', 'UPPERCASE1', 'short', 'a1b2c3d4e5f'])
      expect([other, MintedInstanceIdSchema.safeParse(other).success, parseInstanceId(other)]).toEqual([
        other,
        false,
        undefined,
      ]);
    expect(parseInstanceId('a1b2c3d4e5')).toBe('a1b2c3d4e5');
  });
});
