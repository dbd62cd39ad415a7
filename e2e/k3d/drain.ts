// A drain through the drain-controller's API with a short window: Node (node-sim) is replaced by a
// restart of its Deployment, and the drain must end `done`.
import { DrainRecordSchema, type DrainRecord } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';

const ENDED = new Set(['done', 'aborted', 'failed']);

/** `POST /v1/drains` (restart Node, a 30 s window, no quiet period), then polls it to its end. */
export async function drainNode(baseUrl: string, token: string): Promise<DrainRecord[]> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const created = await fetch(`${baseUrl}/v1/drains`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ reason: 'k3d e2e', target: { restart: true }, window: '30s', quietPeriod: '0s' }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/drains: ${created.status} ${await created.text()}`);
  const { id } = DrainRecordSchema.parse(await created.json());
  const seen: DrainRecord[] = [];
  await waitFor(
    async () => {
      const response = await fetch(`${baseUrl}/v1/drains/${id}`, { headers });
      const record = DrainRecordSchema.parse(await response.json());
      if (seen.at(-1)?.phase !== record.phase) seen.push(record);
      return ENDED.has(record.phase);
    },
    { description: `drain ${id} to end`, timeoutMs: 600_000, intervalMs: 1_000 },
  );
  return seen;
}
