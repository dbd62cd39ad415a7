// Drains through the drain-controller's API: Node (node-sim) is replaced by a restart of its
// Deployment, and the drain must end `done`.
import { DrainRecordSchema, TERMINAL_DRAIN_PHASES, type DrainRecord } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';

/** A drain's id and the records seen at each phase change. */
export interface DrainRun {
  id: string;
  seen: DrainRecord[];
}

const headers = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

/** `POST /v1/drains` (restart Node, no quiet period) with `window`. */
export async function startDrain(baseUrl: string, token: string, window: string): Promise<DrainRecord> {
  const created = await fetch(`${baseUrl}/v1/drains`, {
    method: 'POST',
    headers: headers(token),
    body: JSON.stringify({ reason: 'e2e', target: { restart: true }, window, quietPeriod: '0s' }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/drains: ${created.status} ${await created.text()}`);
  return DrainRecordSchema.parse(await created.json());
}

/** `GET /v1/drains/{id}`. */
export async function readDrain(baseUrl: string, token: string, id: string): Promise<DrainRecord> {
  const response = await fetch(`${baseUrl}/v1/drains/${id}`, { headers: headers(token) });
  if (response.status !== 200) throw new Error(`GET /v1/drains/${id}: ${response.status}`);
  return DrainRecordSchema.parse(await response.json());
}

/** Polls the drain until it ends (or `timeoutMs`); the record at each phase change, the last one last. */
export async function followDrain(
  baseUrl: string,
  token: string,
  id: string,
  timeoutMs: number,
): Promise<DrainRecord[]> {
  const seen: DrainRecord[] = [];
  await waitFor(
    async () => {
      const record = await readDrain(baseUrl, token, id);
      if (seen.at(-1)?.phase !== record.phase) seen.push(record);
      else seen[seen.length - 1] = record;
      return TERMINAL_DRAIN_PHASES.includes(record.phase);
    },
    { description: `drain ${id} to end`, timeoutMs, intervalMs: 1_000 },
  );
  return seen;
}
