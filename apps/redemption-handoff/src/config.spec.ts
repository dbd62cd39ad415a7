import { describe, expect, it } from '@jest/globals';
import { HandoffConfigSchema } from './config';

const required = { INTAKE_SECRET_FILE: '/run/secrets/intake', REDEEMER_SECRET_FILE: '/run/secrets/redeemer' };

describe('HandoffConfigSchema', () => {
  it('needs only the two secret files, and defaults the rest for the embedded stack', () => {
    const config = HandoffConfigSchema.parse(required);
    expect(config).toMatchObject({
      PORT: 7104,
      HOST: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6390',
      REDEEMER_URL: 'http://127.0.0.1:7106',
      CHAIN_VIEW: 'clock',
      TICKET_VALIDITY_ROUNDS: 2,
      DELIVERY_RATE_MAX: 200,
    });
    expect(HandoffConfigSchema.safeParse({}).success).toBe(false);
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
