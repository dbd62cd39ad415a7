import { describe, expect, it } from '@jest/globals';
import { HandoffConfigSchema } from './config';

const required = {
  INTAKE_SECRET_FILE: '/run/secrets/intake',
  REDEEMER_SECRET_FILE: '/run/secrets/redeemer',
  REDEEMER_URL: 'https://redeemer.example',
  ADMIN_TOKEN_FILE: '/run/secrets/admin-token',
  READ_TOKEN_FILE: '/run/secrets/read-token',
};

describe('HandoffConfigSchema', () => {
  it('needs the two secret files and the redeemer, and points at no simulator by default', () => {
    const config = HandoffConfigSchema.parse(required);
    expect(config).toMatchObject({
      PORT: 7104,
      HOST: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6390',
      REDEEMER_URL: 'https://redeemer.example',
      CHAIN_VIEW: 'none',
      TICKET_VALIDITY_ROUNDS: 2,
      DELIVERY_RATE_MAX: 200,
      DRAIN_DELAY_MS: 5_000,
    });
    expect(config.CHAIN_GENESIS_MS).toBeUndefined();
    const { REDEEMER_URL: _url, ...withoutRedeemer } = required;
    expect(HandoffConfigSchema.safeParse(withoutRedeemer).success).toBe(false);
    expect(HandoffConfigSchema.safeParse({}).success).toBe(false);
  });

  it('needs a genesis instant for the clock round view', () => {
    const missing = HandoffConfigSchema.safeParse({ ...required, CHAIN_VIEW: 'clock' });
    expect(missing.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['CHAIN_GENESIS_MS']);
    expect(
      HandoffConfigSchema.parse({ ...required, CHAIN_VIEW: 'clock', CHAIN_GENESIS_MS: '0' }),
    ).toMatchObject({
      CHAIN_VIEW: 'clock',
      CHAIN_GENESIS_MS: 0,
    });
  });

  it('takes libsecp256k1 where it loads unless told otherwise, and refuses an unknown curve', () => {
    expect(HandoffConfigSchema.parse(required).SIGNATURE_BACKEND).toBe('auto');
    expect(HandoffConfigSchema.parse({ ...required, SIGNATURE_BACKEND: 'noble' }).SIGNATURE_BACKEND).toBe(
      'noble',
    );
    expect(HandoffConfigSchema.safeParse({ ...required, SIGNATURE_BACKEND: 'openssl' }).success).toBe(false);
  });

  it('refuses a mixed-case recipient and an unknown chain view', () => {
    expect(
      HandoffConfigSchema.safeParse({ ...required, RECIPIENT_ADDRESS: `0x${'AB'.repeat(20)}` }).success,
    ).toBe(false);
    expect(HandoffConfigSchema.safeParse({ ...required, CHAIN_VIEW: 'rpc' }).success).toBe(false);
    expect(
      HandoffConfigSchema.parse({ ...required, CHAIN_VIEW: 'none', DELIVERY_RATE_MAX: '5' }),
    ).toMatchObject({
      CHAIN_VIEW: 'none',
      DELIVERY_RATE_MAX: 5,
    });
  });
});
