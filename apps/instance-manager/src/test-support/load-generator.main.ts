// The closed-loop load generator as its own process, so the bench can pin it to a CPU of its own
// (`taskset`) apart from the server it measures. Usage: load-generator.main.ts HOST PORT PATH
// CONNECTIONS WARMUP_MS DURATION_MS. Prints `measuring` when the counted window starts (after the
// warm-up, so the caller can read the server's CPU time there) and `rps <requests/s>` at its end.
import { measureRequestsPerSecond } from '@sandbox/testing';
import { monotonicClock } from '@sandbox/service-kit/clock';

const [
  host = '127.0.0.1',
  port = '0',
  path = '/',
  connections = '32',
  warmupMs = '1000',
  durationMs = '3000',
] = process.argv.slice(2);
const load = (ms: number) =>
  measureRequestsPerSecond(host, Number(port), path, {
    clock: monotonicClock,
    connections: Number(connections),
    warmupMs: 0,
    durationMs: ms,
  });
await load(Number(warmupMs));
process.stdout.write('measuring\n');
const rps = await load(Number(durationMs));
process.stdout.write(`rps ${rps}\n`);
