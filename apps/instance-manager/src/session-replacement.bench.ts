// `session-reserved` → replacement started (the driver's start call), p99 over many samples. The
// host is the in-memory fake, so this measures the manager's own path: the event through BullMQ, the
// compare-and-set to taken, the app's reconcile and the new record. Needs Redis only. Run:
//   node --import tsx apps/instance-manager/src/session-replacement.bench.ts
import { startRedis, uniquePrefix } from '@sandbox/testing';
import { percentile, printFigure } from './test-support/bench-figures.fixture';
import { FakeHost } from './test-support/fake-runtime.fixture';
import { replacementSpec } from './test-support/local-host.fixture';
import { measureReplacements } from './test-support/replacement-bench.fixture';

const redis = await startRedis();
try {
  const prefixes = { keyPrefix: uniquePrefix('im'), queuePrefix: uniquePrefix('q') };
  const latencies = await measureReplacements(
    redis.url,
    new FakeHost().driver(),
    replacementSpec('localhost/example-app:1.0'),
    300,
    prefixes,
  );
  printFigure('session_reserved_to_replacement_started_p50', percentile(latencies, 50), 'ms');
  printFigure('session_reserved_to_replacement_started_p99', percentile(latencies, 99), 'ms');
  printFigure('session_reserved_to_replacement_started_samples', latencies.length, 'count');
} finally {
  await redis.stop();
}
