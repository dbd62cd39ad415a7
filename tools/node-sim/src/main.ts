import { idGenerator } from './registry/id-scheme';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { CliError, parseCli, USAGE } from './cli';
import type { CliFlags } from './cli';
import type { NodeSimDeps } from './node-sim';
import { startNodeSim } from './node-sim';
import { FileOutbox, MemoryWinnerSink } from './outbox/file-outbox';
import { handoffEndpoint, OutboxSender } from './outbox/outbox-sender';
import { paidMode } from './payments/paid-mode';
import { readHandoffToken, readSecretBytes } from './secret-files';

/** Creates a random bootstrap secret file (owner-only, no trailing newline) unless one exists. */
function ensureBootstrapSecret(path: string, logger: Logger): void {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, randomBytes(24).toString('hex'), { mode: 0o600, flag: 'wx' });
  logger.info({ bootstrapSecretFile: path }, 'generated bootstrap secret file');
}

function exitWithUsage(error: CliError): never {
  process.stderr.write(`node-sim: ${error.message}\n\n${USAGE}`);
  process.exit(2);
}

function flagsOrExit(): CliFlags {
  try {
    const flags = parseCli(process.argv.slice(2));
    if (flags === 'help') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    return flags;
  } catch (error) {
    if (error instanceof CliError) exitWithUsage(error);
    throw error;
  }
}

/** Paid mode: winners go to the durable outbox (with a hand-off) or stay in memory. */
async function paidDeps(
  flags: CliFlags,
  logger: Logger,
): Promise<{ payments?: NodeSimDeps['payments']; sender?: OutboxSender }> {
  if (!flags.paid) return {};
  const payerKey =
    flags.paid.payerKeyFile === undefined
      ? undefined
      : readSecretBytes('payer-key-file', flags.paid.payerKeyFile).toString('utf8').trim();
  const base = {
    faceValue: flags.paid.faceValue,
    winProb: flags.paid.winProb,
    recipient: flags.paid.recipient,
    payerKey,
  };
  if (!flags.handoff || flags.dataDir === undefined)
    return { payments: paidMode({ ...base, sink: new MemoryWinnerSink() }) };
  const secret = readHandoffToken(flags.handoff.secretFile);
  const outbox = new FileOutbox(flags.dataDir);
  await outbox.init();
  const sender = new OutboxSender({ outbox, url: handoffEndpoint(flags.handoff.url), secret, logger });
  logger.info({ pending: await outbox.count() }, 'winning ticket outbox opened');
  return { payments: paidMode({ ...base, sink: outbox }), sender };
}

async function main(): Promise<void> {
  const flags = flagsOrExit();
  const logger = pino({ name: 'node-sim', level: flags.logLevel });
  let bootstrapSecret: Buffer;
  let paid: Awaited<ReturnType<typeof paidDeps>>;
  try {
    if (flags.generateBootstrapSecret) ensureBootstrapSecret(flags.bootstrapSecretFile, logger);
    bootstrapSecret = readSecretBytes('bootstrap-secret-file', flags.bootstrapSecretFile);
    paid = await paidDeps(flags, logger);
  } catch (error) {
    if (error instanceof CliError) exitWithUsage(error);
    throw error;
  }
  const sim = await startNodeSim(
    {
      listen: flags.listen,
      metricsListen: flags.metricsListen,
      serviceUrl: flags.serviceUrl,
      runnerServiceUrl: flags.runnerServiceUrl,
      bootstrapSecret,
      heartbeatIntervalMs: flags.heartbeatIntervalMs,
      heartbeatTtlMs: flags.heartbeatTtlMs,
      runnerGrants: flags.runnerGrants,
      sessionProxyGrants: flags.sessionProxyGrants,
      weiPerUsd: flags.paid?.weiPerUsd,
    },
    { logger, payments: paid.payments, newId: idGenerator(flags.idFormat) },
  );
  paid.sender?.start();
  // The ready line is printed at any log level: scripts and tests read the bound URLs from it.
  logger.child({}, { level: 'info' }).info(
    {
      publicUrl: sim.publicUrl,
      metricsUrl: sim.metricsUrl,
      serviceUrl: sim.serviceUrl,
      runnerServiceUrl: sim.runnerServiceUrl,
      paid: flags.paid !== undefined,
      bootstrapSecretFile: flags.bootstrapSecretFile,
    },
    'node-sim listening',
  );
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    Promise.all([sim.stop(), paid.sender?.stop()]).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`node-sim: ${(error as Error).message}\n`);
  process.exit(1);
});
