// Sessions through the world's Node for the outage specs: one opened with an SSE stream (once the
// adapter sees it), one stopped by its client, and the adapter's view of its runners.
import { waitFor } from '@sandbox/testing';
import type { DrainWorld } from './drain-world';
import { openSse, type SseClient } from './sse-backend';

/** A session on `runnerId` with an SSE stream through Node, once the adapter reports it. */
export async function openStreamingSession(
  world: DrainWorld,
  runnerId: string,
): Promise<{ sessionId: string; sse: SseClient }> {
  const response = await fetch(`${world.sim.publicUrl}/apps/${runnerId}/session`, { method: 'POST' });
  const { session_id: sessionId } = (await response.json()) as { session_id?: string };
  if (response.status !== 200 || sessionId === undefined)
    throw new Error(`Node refused a session on ${runnerId}: ${response.status}`);
  const sse = await openSse(`${world.sim.publicUrl}/apps/${runnerId}/session/${sessionId}/app/events`);
  await waitFor(
    async () => (await world.runners()).runners.some((runner) => runner.sessions.includes(sessionId)),
    { description: 'the adapter to see the session', timeoutMs: 10_000 },
  );
  return { sessionId, sse };
}

/** The client's stop of a session at Node; returns Node's status. */
export async function stopSession(world: DrainWorld, runnerId: string, sessionId: string): Promise<number> {
  const response = await fetch(`${world.sim.publicUrl}/apps/${runnerId}/session/${sessionId}/stop`, {
    method: 'POST',
  });
  await response.body?.cancel();
  return response.status;
}

/** Every one of `instances` registered at Node (and no other), as the adapter reports it. */
export const allRegistered = (world: DrainWorld, instances: readonly string[]) => async () => {
  const { runners } = await world.runners().catch(() => ({ runners: [] }));
  return runners.length === instances.length && runners.every((runner) => runner.state === 'registered');
};

/** How many times the Node simulator has started so far. */
export const simStarts = (world: DrainWorld): number =>
  world.sim.process.output().split('"node-sim listening"').length - 1;
