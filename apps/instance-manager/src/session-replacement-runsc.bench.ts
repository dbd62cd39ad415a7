// `session-reserved` → replacement started with the real local driver (root): each sample takes the
// warm gVisor instance, times until the replacement's start call, then destroys the taken one. Run:
//   node --import tsx apps/instance-manager/src/session-replacement-runsc.bench.ts
import { percentile, printFigure, startRedis, uniquePrefix } from '@sandbox/testing';
import { createLocalRuntime } from './drivers/local-runtime';
import { exampleImage, replacementSpec, testLocalDriver } from './test-support/local-host.fixture';
import { measureReplacements } from './test-support/replacement-bench.fixture';

const redis = await startRedis();
const driver = await testLocalDriver('imr', '10.216.4.0/24', [redis.port]);
try {
  const prefixes = { keyPrefix: uniquePrefix('im'), queuePrefix: uniquePrefix('q') };
  const latencies = await measureReplacements(
    redis.url,
    createLocalRuntime(driver),
    replacementSpec(await exampleImage()),
    20,
    prefixes,
  );
  printFigure(
    'gvisor_session_reserved_to_replacement_started_p50_ms',
    percentile(latencies, 50),
    latencies.length,
  );
  printFigure(
    'gvisor_session_reserved_to_replacement_started_p99_ms',
    percentile(latencies, 99),
    latencies.length,
  );
} finally {
  for (const found of await driver.list()) await driver.stop(found.instanceId);
  await redis.stop();
}
