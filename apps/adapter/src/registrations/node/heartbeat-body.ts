import type { HeartbeatRequest, InstanceReady } from '@sandbox/protocol';

/**
 * The heartbeat body of an instance's runner: everything Node advertises comes from the instance's
 * spec. `status` is always `ready`: in Node any other status also cuts the traffic of existing
 * sessions, so withdrawal caps `capacity` instead. The USD price stays decimal text and is written
 * as a JSON number digit for digit (see `encodeHeartbeatBody`). `sessionIds` becomes part of the body:
 * pass a fresh array (the tracker's `ids()` is one).
 */
export function heartbeatBody(
  instance: InstanceReady,
  runnerId: string,
  capacity: number,
  sessionIds: string[],
): HeartbeatRequest {
  const body: HeartbeatRequest = {
    runner_id: runnerId,
    runner_url: instance.url,
    app: instance.app,
    capacity,
    mode: instance.mode,
    status: 'ready',
    metadata: instance.metadata,
    // Node ignores this list and answers with its own; sending ours helps when reading Node's logs.
    session_ids: sessionIds,
  };
  if (instance.price !== undefined) {
    body.price_info = { price: instance.price.usd, currency: 'usd', unit: instance.price.unit };
  }
  if (instance.gpu !== undefined) {
    const { id, name, vramMb } = instance.gpu;
    body.gpu = {
      ...(id === undefined ? {} : { id }),
      ...(name === undefined ? {} : { name }),
      ...(vramMb === undefined ? {} : { vram_mb: vramMb }),
    };
  }
  if (instance.version !== undefined) body.version = instance.version;
  return body;
}
