import type { RuntimeDriver } from '../drivers/runtime-driver';
import type { AppSpecInput } from '@sandbox/protocol';
import { adapterSide, startManager, testSettings } from './manager-harness.fixture';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `session-reserved` → replacement started: reserves the warm instance of a single-session app and
 * times from queueing the event to the driver's `start` call for the replacement; then ends the
 * session (release, withdrawal answered) and waits for a quiet pool before the next sample.
 */
export async function measureReplacements(
  redisUrl: string,
  driver: RuntimeDriver,
  spec: AppSpecInput,
  samples: number,
  prefixes: { keyPrefix: string; queuePrefix: string },
): Promise<number[]> {
  const starts = new Map<string, number>();
  const timed: RuntimeDriver = {
    ...driver,
    start: (req) => {
      starts.set(req.instanceId, Date.now());
      return driver.start(req);
    },
  };
  const settings = testSettings(prefixes.keyPrefix, prefixes.queuePrefix, { resyncIntervalMs: 5_000 });
  const adapter = await adapterSide(redisUrl, settings.queuePrefix);
  const harness = await startManager(redisUrl, timed, settings);
  const latencies: number[] = [];
  const live = () => harness.store.listLive('bench');

  try {
    await harness.api.put('/v1/apps/bench').send(spec).expect(201);
    for (let sample = 0; sample < samples; sample += 1) {
      let ready: string | undefined;
      while (!ready) {
        const entries = await live();
        if (entries.length === 1 && entries[0]?.record.state === 'ready' && entries[0].record.readyQueued)
          ready = entries[0].record.id;
        else await pause(5);
      }
      const known = new Set(starts.keys());
      const queued = Date.now();
      const session = await adapter.reserve(ready);
      let replacement: number | undefined;
      while (replacement === undefined) {
        replacement = [...starts.entries()].find(([id]) => !known.has(id))?.[1];
        if (replacement === undefined) await pause(1);
      }
      latencies.push(replacement - queued);
      await adapter.release(ready, session);
      while ((await harness.store.get(ready))?.record.state !== 'withdrawing') await pause(5);
      await adapter.withdrawn(ready);
      while ((await harness.store.get(ready))?.record.state !== 'gone') await pause(5);
    }
  } finally {
    await harness.stop();
    await adapter.close();
  }
  return latencies;
}
