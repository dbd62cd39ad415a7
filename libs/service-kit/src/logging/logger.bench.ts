// Cost of one log line through the kit's redaction layers, written to an in-memory sink.
// Run: node --import tsx libs/service-kit/src/logging/logger.bench.ts
import { printFigure } from '@sandbox/testing';
import { createLogger } from './logger';
import { createSecretScrubber } from './secret-scrubber';

const LINES = 50_000;

function bench(
  name: string,
  registered: number,
  log: (logger: ReturnType<typeof createLogger>, i: number) => void,
): void {
  const secrets = createSecretScrubber();
  for (let i = 0; i < registered; i += 1)
    secrets.register(`session-token-${i.toString().padStart(8, '0')}-abcdef`);
  let bytes = 0;
  const logger = createLogger({
    svc: 'bench',
    destination: { write: (line: string) => void (bytes += line.length) },
    secrets,
  });
  for (let i = 0; i < 2_000; i += 1) log(logger, i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < LINES; i += 1) log(logger, i);
  const micros = Number(process.hrtime.bigint() - started) / 1_000 / LINES;
  if (bytes === 0) throw new Error('nothing was written');
  printFigure(`${name}_us`, micros, LINES);
}

class Credentials {
  readonly runnerId = 'r-1';
  readonly sessionToken = 'not-registered-token';
}

bench('logger_plain_line', 1, (logger, i) =>
  logger.info({ jobId: `j${i}`, queue: 'instance-events' }, 'job done'),
);
bench('logger_nested_secret_field', 1, (logger, i) =>
  logger.info({ job: { id: i, runner: { heartbeatSecret: 'x', capacity: 4 } } }, 'registered'),
);
bench('logger_100_registered_secrets', 100, (logger, i) =>
  logger.info({ jobId: `j${i}`, note: 'no secret here' }, 'job done'),
);
bench('logger_reparsed_line', 1, (logger) => logger.info({ creds: new Credentials() }, 'class instance'));
bench('logger_error_with_cause', 1, (logger) =>
  logger.error({ err: new Error('outer', { cause: new Error('inner') }) }, 'failed'),
);
