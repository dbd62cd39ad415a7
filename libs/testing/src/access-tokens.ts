import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The two management tokens of a service (service-kit's `AccessTokens`). */
export interface TestTokens {
  readonly admin: string;
  readonly read: string;
}

/**
 * Management-API credentials for a test: token files for a service process, the tokens for an
 * in-process app's `accessPolicy({ tokens, serviceName })`, and ready-made headers.
 */
export interface TestAccess {
  readonly tokens: TestTokens;
  /** `ADMIN_TOKEN_FILE` and `READ_TOKEN_FILE` for a service's environment. */
  readonly env: { ADMIN_TOKEN_FILE: string; READ_TOKEN_FILE: string };
  /** `{ authorization: 'Bearer <token>' }` of a role; `wrong` is a well-formed token of no role. */
  headers(role: 'admin' | 'read' | 'wrong'): { authorization: string };
  /** Removes the token files. */
  cleanup(): void;
}

const token = (label: string) => `${label}-${randomBytes(18).toString('hex')}`;

/** Fresh random tokens (distinct per call, recognisable in a failure message by their prefix). */
export function createTestAccess(): TestAccess {
  const tokens: TestTokens = { admin: token('test-admin'), read: token('test-read') };
  const wrong = token('test-wrong');
  const dir = mkdtempSync(join(tmpdir(), 'access-tokens-'));
  const file = (name: string, value: string) => {
    const path = join(dir, name);
    writeFileSync(path, `${value}\n`, { mode: 0o600 });
    return path;
  };
  const env = {
    ADMIN_TOKEN_FILE: file('admin-token', tokens.admin),
    READ_TOKEN_FILE: file('read-token', tokens.read),
  };
  return {
    tokens,
    env,
    headers: (role) => ({ authorization: `Bearer ${role === 'wrong' ? wrong : tokens[role]}` }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
