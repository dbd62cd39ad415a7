import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody, TargetStatus } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { openPaidWorld, type PaidWorld } from './__fixtures__/paid-world';
import { startVerifier } from './__fixtures__/verifier-harness';

// A retried on-demand order (same Idempotency-Key, same body) runs and pays once.
let world: PaidWorld;
let verifier: Awaited<ReturnType<typeof startVerifier>>;

beforeAll(async () => {
  world = await openPaidWorld({ name: 'orders', bootstrap: 'idempotent-orders-bootstrap' });
  await world.register({ runnerId: 'order-1', app: 'eval-order' });
  verifier = await startVerifier(world.verifierEnv(), {
    signerCredential: 'orders-signer-credential',
    signingKeyHex: '3c'.repeat(32),
  });
}, 120_000);

afterAll(async () => {
  await verifier?.stop();
  await world?.close();
});

function order(body: object, key?: string): Promise<Response> {
  return verifier.api('/v1/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
}

const reservations = () =>
  verifier.log.lines.filter((line) => line.includes('"session reserved"') && line.includes('"order-1"'))
    .length;

describe('idempotent orders', () => {
  it('answers a retried order with the first run and pays once', async () => {
    const key = 'retry-7f3a9c2e-1b44-4d1e-9a6f-2c8d1e5b7a01';
    const body = { target: { app: 'eval-order', runnerId: 'order-1' } };
    const before = reservations();
    const [first, ...retries] = await Promise.all([order(body, key), order(body, key), order(body, key)]);
    const answers = await Promise.all(
      [first, ...retries].map(async (reply) => ({
        status: reply?.status,
        body: (await reply?.json()) as { evaluationId: string },
        replayed: reply?.headers.get('idempotent-replayed'),
      })),
    );
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    const ids = new Set(answers.map((answer) => answer.body.evaluationId));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.replayed === 'true')).toHaveLength(2);
    const [evaluationId] = [...ids];
    const status = await waitFor(
      async () => {
        const target = (await (await verifier.api('/v1/targets/order-1')).json()) as TargetStatus;
        return target.attempts.some((attempt) => attempt.evaluationId === evaluationId) ? target : undefined;
      },
      { description: 'the ordered run', timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(status.attempts[0]).toMatchObject({ evaluationId, status: 'pass' });
    // A retry after the run finished still answers the first run and queues nothing.
    const late = await order({ target: { runnerId: 'order-1', app: 'eval-order' } }, key);
    expect(late.status).toBe(202);
    expect(((await late.json()) as { evaluationId: string }).evaluationId).toBe(evaluationId);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = (await (await verifier.api('/v1/targets/order-1')).json()) as TargetStatus;
    expect(after.attempts.filter((attempt) => attempt.evaluationId === evaluationId)).toHaveLength(1);
    expect(reservations() - before).toBe(1);
  });

  it('refuses the same key for another order (422) and a malformed key (400)', async () => {
    const key = 'reused-key-0001';
    expect((await order({ target: { app: 'eval-order', runnerId: 'order-1' } }, key)).status).toBe(202);
    const other = await order({ target: { app: 'eval-order' } }, key);
    expect(other.status).toBe(422);
    expect(((await other.json()) as ErrorBody).error.code).toBe('idempotency_key_reused');
    for (const bad of ['has space', 'x'.repeat(129), 'ü-key']) {
      const reply = await order({ target: { app: 'eval-order' } }, bad);
      expect(reply.status).toBe(400);
      expect(((await reply.json()) as ErrorBody).error.code).toBe('invalid_request');
    }
  });
});
