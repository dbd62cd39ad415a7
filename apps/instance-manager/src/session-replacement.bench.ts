// `session-reserved` → replacement started (the driver's start call), p99 over many samples. The
// host is the in-memory fake, so this measures the manager's own path: the event through BullMQ, the
// compare-and-set to taken, the app's reconcile and the new record. Needs Redis only. Run:
//   node --import tsx apps/instance-manager/src/session-replacement.bench.ts
import { percentile, printFigure, startRedis, uniquePrefix } from '@sandbox/testing';
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
  printFigure('session_reserved_to_replacement_started_p50_ms', percentile(latencies, 50), latencies.length);
  printFigure('session_reserved_to_replacement_started_p99_ms', percentile(latencies, 99), latencies.length);
} finally {
  await redis.stop();
}
