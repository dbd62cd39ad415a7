// Crash soak: many more kill -9 rounds than CI runs, for a release or a change to the money path.
//   node --import tsx tools/redeemer-sim/src/system/crash-soak.ts --rounds 1000 [--seed N] [--tickets 20]
// Prints one progress line per round and the final comparison as JSON; exits 1 on any loss, double
// submission or undecided ticket.
import { parseArgs } from 'node:util';
import { runCrashRounds } from './crash-rounds';
import { startHandoffStack } from './handoff-stack';
import { readTicketStates } from './handoff-views';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    tickets: { type: 'string', default: '20' },
  },
});
const rounds = Number(values.rounds);
const seed = Number(values.seed);
const tickets = Number(values.tickets);
if (![rounds, seed, tickets].every((value) => Number.isInteger(value) && value > 0)) {
  process.stderr.write('usage: crash-soak.ts --rounds <n> [--seed <n>] [--tickets <per round>]\n');
  process.exit(2);
}

const stack = await startHandoffStack({ redeemerEnv: { SIM_LATENCY_MS: '40', SIM_LOST_ACK_RATE: '0.05' } });
let failed = true;
try {
  const started = Date.now();
  const report = await runCrashRounds(stack, {
    rounds,
    seed,
    ticketsPerRound: tickets,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const states = await readTicketStates(stack);
  const { lost, submittedTwice, undecided, unknown, ...summary } = report;
  process.stdout.write(
    `${JSON.stringify({ seed, seconds: Math.round((Date.now() - started) / 1000), ...summary, lost: lost.length, submittedTwice: submittedTwice.length, undecided: undecided.length, unknown: unknown.length, handoffStates: states }, null, 2)}\n`,
  );
  failed =
    lost.length + submittedTwice.length + undecided.length + unknown.length > 0 ||
    report.acknowledged !== report.produced;
} finally {
  await stack.stop();
}
process.exit(failed ? 1 : 0);
