import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import type { TargetStatus } from '@sandbox/protocol';
import { startService, type StartedService } from '@sandbox/service-kit';
import { boundPort } from '@sandbox/service-kit';
import { until } from './until';
import { VerifierConfigSchema, type VerifierConfig } from '../config';
import { composeVerifier, type VerifierSeams } from '../service';

/** Log lines kept in memory. */
export function memoryLog() {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line), text: () => lines.join('') };
}

/** The verifier started in-process through `startService`, with its files in a temp directory. */
export async function startVerifier(
  env: Record<string, string>,
  seams: VerifierSeams & { signerCredential: string },
) {
  const dir = await mkdtemp(join(tmpdir(), 'verifier-'));
  const signerFile = join(dir, 'signer');
  const keyFile = join(dir, 'key');
  await writeFile(signerFile, `${seams.signerCredential}\n`, { mode: 0o600 });
  await writeFile(keyFile, seams.signingKeyHex ?? '', { mode: 0o600 });
  const adminToken = `admin-${randomBytes(12).toString('hex')}`;
  await writeFile(join(dir, 'admin'), adminToken, { mode: 0o600 });
  await writeFile(join(dir, 'read'), `read-${randomBytes(12).toString('hex')}`, { mode: 0o600 });
  const log = memoryLog();
  const exits: number[] = [];
  const { signerCredential: _credential, signingKeyHex: _key, ...rest } = seams;
  const started: StartedService<VerifierConfig> = await startService({
    name: 'verifier',
    configSchema: VerifierConfigSchema,
    env: {
      PORT: '0',
      DRAIN_DELAY_MS: '0',
      LOG_LEVEL: 'debug',
      SIGNER_SECRET_FILE: signerFile,
      SIGNING_KEY_FILE: keyFile,
      ADMIN_TOKEN_FILE: join(dir, 'admin'),
      READ_TOKEN_FILE: join(dir, 'read'),
      SCHEDULE_APPS: '',
      ...env,
    },
    compose: (context) => composeVerifier(context, rest),
    destination: log,
    signals: new EventEmitter(),
    exit: (code) => void exits.push(code),
  });
  const base = `http://127.0.0.1:${boundPort(started.server)}`;
  /** A call to the verifier's API with the admin token. */
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${adminToken}` },
    });
  return {
    ...started,
    base,
    api,
    log,
    async stop() {
      await started.runtime.shutdown.run('test over', 0);
      await rm(dir, { recursive: true, force: true });
    },
    /** Requests an on-demand run and waits until the target's attempts show it. */
    async evaluate(
      target: { app: string; runnerId?: string },
      runnerId = target.runnerId,
    ): Promise<TargetStatus> {
      const reply = await api('/v1/evaluations', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target }),
      });
      if (reply.status !== 202) throw new Error(`POST /v1/evaluations answered ${reply.status}`);
      const { evaluationId } = (await reply.json()) as { evaluationId: string };
      return until(
        async () => {
          const status = await api(`/v1/targets/${runnerId ?? ''}`);
          if (status.status !== 200) return undefined;
          const body = (await status.json()) as TargetStatus;
          return body.attempts.some((attempt) => attempt.evaluationId.startsWith(evaluationId))
            ? body
            : undefined;
        },
        `evaluation ${evaluationId} to finish`,
        60_000,
        100,
      );
    },
  };
}
