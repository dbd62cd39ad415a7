// `npm run soak -- --minutes N [--seed S] [--report FILE]`: a chaos soak of the embedded system. It runs
// the stack in paid mode with three apps of the example image, keeps SDK clients busy, injects the
// seed's faults, checks the invariants live and at the end, and writes a report. Ctrl-C stops it early
// and still cleans up and reports. Needs root (the instance-manager's local gVisor driver).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { instanceManagerRoutes } from '@sandbox/protocol';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { localInstances, RESTART_SIGNAL } from './stack-api';
import { ensureSdkVenv } from '@sandbox/testing';
import { pino } from 'pino';
import { cleanUpLeftovers, startTimeOf } from './host-check';
import { InvariantTracker } from './invariant-tracker';
import { RecoveryTimer } from './recovery-timer';
import { callRoute } from './route-client';
import { soakApps } from './soak-apps';
import { parseSoakArgs } from './soak-args';
import { loadSoakConfig } from './config';
import { ledgerViolations, recoveryViolations, sessionViolations, settleLedger } from './soak-finish';
import { createSoakLog } from './soak-log';
import { formatReport, summarizeFaults, type SoakReport } from './soak-report';
import { runSoak, type RunResult } from './soak-run';
import { startSoakStack } from './soak-stack';
import { WinnerLedger } from './winner-ledger';
import { watchOutbox } from './winner-watch';

const args = (() => {
  try {
    return parseSoakArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
})();
if (process.getuid?.() !== 0) {
  process.stderr.write(
    'the soak needs root: the instance-manager runs instances with network namespaces and iptables\n',
  );
  process.exit(2);
}
const config = loadSoakConfig();
const startMs = Date.now();
const stamp = new Date(startMs).toISOString().replaceAll(':', '-');
const runDir = resolve('.data', 'soak', `${stamp}-${args.seed}`);
const reportPath = resolve(args.report ?? join('.bench', 'soak', `report-${args.seed}-${stamp}.json`));
mkdirSync(runDir, { recursive: true });
const log = createSoakLog({
  startMs,
  stackLogPath: join(runDir, 'stack.log'),
  write: (t) => void process.stdout.write(t),
});
log.say(
  `soak: seed ${args.seed}, ${args.minutes} min (replay: npm run soak -- --minutes ${args.minutes} --seed ${args.seed})`,
);
log.say(`members' output: ${join(runDir, 'stack.log')}`);

const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (!interrupt.signal.aborted) log.say(`${signal} received: stopping the soak, then cleaning up`);
    interrupt.abort();
  });

const image = await ensureExampleAppImage();
const python = ensureSdkVenv();
const driverLog = pino(
  { level: 'warn', base: { svc: 'soak' } },
  pino.destination({ dest: join(runDir, 'driver.log'), mkdir: true }),
);
const stack = await startSoakStack({
  runDir,
  prefix: config.SOAK_INSTANCE_PREFIX,
  subnet: config.SOAK_INSTANCE_SUBNET,
  console: log.stackConsole,
  logger: driverLog,
  baseEnv: config.inherited,
});
process.on(RESTART_SIGNAL, () => stack.relay(RESTART_SIGNAL));
const result: RunResult = {
  records: [],
  tracker: new InvariantTracker(startMs),
  recovery: new RecoveryTimer(),
  tally: { sessions: 0, failures: 0, held: [], lastErrors: [] },
  drainDeadlinesMs: new Set(),
  memberPids: new Set(),
  clientPids: new Set(),
};
const ledger = new WinnerLedger();
const apps = soakApps(image);
let startError: string | undefined;
try {
  await Promise.race([
    stack.ready,
    new Promise((_, reject) =>
      interrupt.signal.addEventListener('abort', () => reject(new Error('interrupted during start-up'))),
    ),
  ]);
  log.say('every member is ready; declaring the apps');
  const admin = readFileSync(stack.secrets.adminToken, 'utf8').trim();
  for (const app of apps)
    await callRoute(
      `http://127.0.0.1:${stack.config.INSTANCE_MANAGER_PORT}`,
      admin,
      instanceManagerRoutes.putApp,
      {
        params: { app: app.name },
        body: app.spec,
      },
    );
  const outbox = watchOutbox(join(stack.dataDir, 'node-sim'), ledger);
  await runSoak(
    {
      seed: args.seed,
      durationMs: args.minutes * 60_000,
      startMs,
      stack,
      apps,
      prefix: config.SOAK_INSTANCE_PREFIX,
      python,
      signal: interrupt.signal,
      say: log.say,
    },
    result,
  );
  outbox.close();
} catch (error) {
  startError = (error as Error).message;
  log.say(`the soak could not run: ${startError}`);
}

const comparison = startError
  ? undefined
  : await settleLedger(
      ledger,
      join(stack.dataDir, 'node-sim'),
      `http://127.0.0.1:${stack.config.REDEEMER_SIM_PORT}`,
      interrupt.signal.aborted ? 20_000 : 120_000,
      log.say,
    );
const endMs = Date.now();
result.tracker.finish(endMs);
const violations = [
  ...result.tracker.violations,
  ...recoveryViolations(result.records, result, endMs, startMs),
  ...sessionViolations(result, startMs),
  ...(startError ? [] : ledgerViolations(comparison, endMs - startMs)),
];
log.say('stopping the stack');
for (const member of stack.members.values()) {
  const pid = member.pid();
  if (pid !== undefined) result.memberPids.add(pid);
}
// The run's processes with their start times, taken while they run: a pid reused later is not ours.
const processes = new Map<number, string | undefined>();
for (const pid of [...result.memberPids, ...result.clientPids]) processes.set(pid, startTimeOf(pid));
await stack.stop();
const leftovers = await cleanUpLeftovers(
  localInstances({
    prefix: config.SOAK_INSTANCE_PREFIX,
    subnet: config.SOAK_INSTANCE_SUBNET,
    logger: driverLog,
  }),
  processes,
  log.say,
);
const report: SoakReport = {
  seed: args.seed,
  minutes: args.minutes,
  startedAt: new Date(startMs).toISOString(),
  endedAt: new Date(endMs).toISOString(),
  interrupted: interrupt.signal.aborted,
  ...(startError ? { startError } : {}),
  faults: summarizeFaults(result.records),
  faultLog: result.records,
  ...(comparison ? { ledger: comparison } : {}),
  violations,
  leftovers,
  clients: {
    sessions: result.tally.sessions,
    failures: result.tally.failures,
    held: result.tally.held.length,
    cut: result.tally.held.filter((session) => session.cut !== undefined).length,
    lastErrors: result.tally.lastErrors,
  },
};
mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(formatReport(report));
log.say(`report written to ${reportPath}`);
await log.close();
process.exit(violations.length === 0 && leftovers.length === 0 && !startError ? 0 : 1);
