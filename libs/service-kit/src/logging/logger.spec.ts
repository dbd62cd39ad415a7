import { describe, expect, it } from '@jest/globals';
import { memoryDestination } from '../__fixtures__/test-doubles';
import { AppError } from '../errors/app-error';
import { createLogger } from './logger';
import { REDACTED } from './redact';
import { createSecretScrubber, SCRUBBED } from './secret-scrubber';

// Registered with the scrubber (a value read from a secret file).
const CANARY = 'canary-registered-9d41c7e2b8';
// Never registered: only field-name redaction may keep it out.
const FIELD_CANARY = 'canary-field-5b2e8a6f03';

function setup(includeStacks = false) {
  const out = memoryDestination();
  const secrets = createSecretScrubber();
  secrets.register(CANARY);
  const logger = createLogger({ svc: 'test-svc', level: 'trace', destination: out, secrets, includeStacks });
  return { out, logger, secrets };
}

function expectClean(text: string): void {
  expect(text).not.toContain(CANARY);
  expect(text).not.toContain(FIELD_CANARY);
  expect(text).not.toContain('canary-registered');
}

describe('createLogger', () => {
  it('writes JSON lines with the level label, svc and child fields', () => {
    const { out, logger } = setup();
    logger.child({ queue: 'instance-events', jobId: 'j1' }).info({ attempt: 2 }, 'job started');
    expect(out.records()).toEqual([
      expect.objectContaining({
        level: 'info',
        svc: 'test-svc',
        queue: 'instance-events',
        jobId: 'j1',
        attempt: 2,
        msg: 'job started',
      }),
    ]);
  });

  it('redacts secret-named fields at any depth, in any case, in objects, arrays and child bindings', () => {
    const { out, logger } = setup();
    const child = logger.child({ runner: { node: { heartbeatSecret: FIELD_CANARY } } });
    child.info(
      { a: { b: [{ bootstrapSecret: FIELD_CANARY, keep: 'visible' }] }, Authorization: FIELD_CANARY },
      'nested',
    );
    child.info(
      { ticket: { recipientRand: FIELD_CANARY, senderSig: FIELD_CANARY, sig: FIELD_CANARY } },
      'ticket',
    );
    child.info(
      { headers: { 'livepeer-session-token': FIELD_CANARY, 'Livepeer-Payment': FIELD_CANARY } },
      'headers',
    );
    expectClean(out.text());
    const [first] = out.records();
    expect(first).toMatchObject({ runner: { node: { heartbeatSecret: REDACTED } }, Authorization: REDACTED });
    expect(first).toMatchObject({ a: { b: [{ bootstrapSecret: REDACTED, keep: 'visible' }] } });
  });

  it('redacts common credential names and secret fields of JSON held in strings, in fields and messages', () => {
    const { out, logger } = setup();
    logger.info(
      { config: { apiKey: FIELD_CANARY, privateKey: FIELD_CANARY, token: FIELD_CANARY } },
      'config',
    );
    logger.info({ body: JSON.stringify({ user: 'u', password: FIELD_CANARY }) }, 'request body');
    logger.info({ raw: `upstream said {"access_token": "${FIELD_CANARY}", "ok": true}` }, 'embedded');
    logger.info(`payload ${JSON.stringify({ nested: JSON.stringify({ api_key: FIELD_CANARY }) })}`);
    expectClean(out.text());
    expect(out.records()[1]).toMatchObject({ body: JSON.stringify({ user: 'u', password: REDACTED }) });
  });

  it('redacts secret-named fields of class instances and cyclic structures', () => {
    const { out, logger } = setup();
    class Credentials {
      readonly runnerId = 'r-1';
      readonly sessionToken = FIELD_CANARY;
    }
    const cyclic: Record<string, unknown> = { verifierSeed: FIELD_CANARY };
    cyclic['self'] = cyclic;
    logger.info({ creds: new Credentials(), cyclic }, 'instances');
    expectClean(out.text());
    expect(out.records()[0]).toMatchObject({ creds: { runnerId: 'r-1', sessionToken: REDACTED } });
  });

  it('scrubs a registered value from messages, interpolations and any field', () => {
    const { out, logger } = setup();
    logger.info(`registered ${CANARY} in the message`);
    logger.info('interpolated %s here', CANARY);
    logger.info({ note: `inside ${CANARY} a string`, list: [CANARY], [CANARY]: 1 }, 'fields');
    logger.info({ doc: JSON.stringify({ value: CANARY }) }, 'escaped');
    expectClean(out.text());
    expect(out.records()[0]?.['msg']).toBe(`registered ${SCRUBBED} in the message`);
  });

  it('keeps a registered value out of an error message and cause, without stacks outside development', () => {
    const { out, logger } = setup();
    const error = new AppError('internal', `upstream said ${CANARY}`, {
      cause: new Error(`cause ${CANARY}`),
    });
    logger.error({ err: error }, 'failed');
    logger.error(new Error(`first argument ${CANARY}`));
    logger.warn({ job: { failure: new TypeError(`deep ${CANARY}`) } }, 'deep error');
    expectClean(out.text());
    const [first, second, third] = out.records();
    expect(first?.['err']).toEqual({
      type: 'AppError',
      message: `upstream said ${SCRUBBED}`,
      code: 'internal',
      status: 500,
      cause: { type: 'Error', message: `cause ${SCRUBBED}` },
    });
    expect(second).toMatchObject({ err: { message: `first argument ${SCRUBBED}` } });
    expect(third).toMatchObject({ job: { failure: { type: 'TypeError', message: `deep ${SCRUBBED}` } } });
    expect(out.text()).not.toContain('"stack"');
  });

  it('logs stacks in development, still scrubbed', () => {
    const { out, logger } = setup(true);
    logger.error({ err: new Error(`with stack ${CANARY}`) }, 'failed');
    expectClean(out.text());
    expect(out.records()[0]).toMatchObject({
      err: { stack: expect.stringContaining(`with stack ${SCRUBBED}`) },
    });
  });

  it('logs only allow-listed error fields, so a client error carrying its request leaks nothing', () => {
    const { out, logger } = setup();
    const error = Object.assign(new Error('request failed'), {
      code: 'ECONNRESET',
      config: { headers: { 'x-custom-credential-header': FIELD_CANARY } },
      command: { name: 'auth', args: [FIELD_CANARY] },
    });
    logger.error({ err: error }, 'client error');
    expectClean(out.text());
    expect(out.records()[0]?.['err']).toEqual({
      type: 'Error',
      message: 'request failed',
      code: 'ECONNRESET',
    });
  });
});
