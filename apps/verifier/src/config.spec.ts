import { describe, expect, it } from '@jest/globals';
import { VerifierConfigSchema } from './config';

const files = {
  SIGNER_SECRET_FILE: '/run/secrets/signer',
  SIGNING_KEY_FILE: '/run/secrets/key',
  ADMIN_TOKEN_FILE: '/run/secrets/admin',
  READ_TOKEN_FILE: '/run/secrets/read',
};

describe('verifier config', () => {
  it('defaults to the plan the method asks for', () => {
    const config = VerifierConfigSchema.parse(files);
    expect(config).toMatchObject({
      PORT: 7105,
      LATENCY_PROBES: 20,
      LATENCY_GAP_MS: 50,
      TRANSFER_SECONDS: 10,
      HASH_SHARES: 400,
      SCHEDULE_APPS: ['eval-responder'],
      EVALUATIONS_PER_SESSION: 1,
    });
  });

  it('refuses fewer than 20 probes and missing secret files', () => {
    expect(VerifierConfigSchema.safeParse({ ...files, LATENCY_PROBES: '5' }).success).toBe(false);
    expect(VerifierConfigSchema.safeParse({}).success).toBe(false);
    expect(VerifierConfigSchema.parse({ ...files, SCHEDULE_APPS: '' }).SCHEDULE_APPS).toEqual([]);
  });
});
