// The verifier's worked trace, from a real run: `node --import tsx e2e/local/verifier-trace.ts` prints
// it as markdown; with `--write` it also replaces the trace in apps/verifier/README.md. Every process
// is real (Redis, the Node simulator in paid mode, eval-responder processes as instances, the verifier
// as its main.ts runs it); each report is joined to the session's logs and Node's O2R events by
// runner_id and session_id only.
import { readFile, writeFile } from 'node:fs/promises';
import * as prettier from 'prettier';
import { SignedEvaluationReportSchema, TargetStatusSchema, type EvaluationAttempt } from '@sandbox/protocol';
import { waitFor } from '@sandbox/testing';
import { SIGNER_CREDENTIAL, startTraceStack, type TraceStack } from './verifier-trace-stack';

const README = 'apps/verifier/README.md';
const START = '<!-- worked-trace:start -->';
const END = '<!-- worked-trace:end -->';
const LOG_FIELDS = [
  'msg',
  'runner_id',
  'session_id',
  'evaluationId',
  'sessionEvaluation',
  'reportId',
  'outcome',
  'status',
];

const out: string[] = [];
const say = (text: string) => out.push(text, '');
const block = (lines: string[]) => say(['```json', ...lines, '```'].join('\n'));

/** Orders a run with an Idempotency-Key; resolves with its id. */
async function order(stack: TraceStack, body: object, key: string): Promise<string> {
  const reply = await stack.api('/v1/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  if (reply.status !== 202) throw new Error(`POST /v1/evaluations answered ${reply.status}`);
  const { evaluationId } = (await reply.json()) as { evaluationId: string };
  say(
    `\`POST /v1/evaluations\` \`${JSON.stringify(body)}\` (\`Idempotency-Key: ${key}\`) → 202 \`${evaluationId}\``,
  );
  return evaluationId;
}

async function attempts(
  stack: TraceStack,
  runnerId: string,
  id: string,
  count: number,
): Promise<EvaluationAttempt[]> {
  return waitFor(
    async () => {
      const reply = await stack.api(`/v1/targets/${runnerId}`);
      if (reply.status !== 200) return undefined;
      const mine = TargetStatusSchema.parse(await reply.json()).attempts.filter((a) =>
        a.evaluationId.startsWith(id),
      );
      return mine.length >= count ? mine.reverse() : undefined;
    },
    { description: `${count} attempts of ${id} on ${runnerId}`, timeoutMs: 120_000, intervalMs: 200 },
  );
}

/** The verifier's log lines and Node's events of these sessions, and each report abridged. */
async function show(stack: TraceStack, found: EvaluationAttempt[], runnerId?: string) {
  const sessions = new Set(found.map((attempt) => attempt.sessionId).filter((id) => id !== null));
  const ids = new Set(found.map((attempt) => attempt.evaluationId));
  const lines = stack.verifier
    .stdout()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    })
    .filter((line) => sessions.has(String(line['session_id'])) || ids.has(String(line['evaluationId'])))
    .map((line) =>
      JSON.stringify(
        Object.fromEntries(LOG_FIELDS.flatMap((field) => (field in line ? [[field, line[field]]] : []))),
      ),
    );
  block(lines);
  const events = stack.events
    .filter((event) => sessions.has(event.session_id))
    .map((event) => JSON.stringify(event));
  if (events.length > 0) {
    say("Node's O2R events of those sessions:");
    block(events);
  } else if (sessions.size === 0 && runnerId !== undefined) {
    // Single-shot: no session of the verifier's own; each paid call was a transient one at Node.
    const calls = stack.events.filter((event) => event.runner_id === runnerId);
    const reserved = calls.filter((event) => event.event === 'reserved').length;
    say(
      `Node's O2R channel of \`${runnerId}\` carried ${reserved} \`reserved\` and ${calls.length - reserved} \`released\` events, one transient session per paid call; the first two:`,
    );
    block(calls.slice(0, 2).map((event) => JSON.stringify(event)));
  }

  const reports: string[] = [];
  for (const attempt of found) {
    if (!attempt.reportId) continue;
    const { report } = SignedEvaluationReportSchema.parse(
      await (await stack.api(`/v1/reports/${attempt.reportId}`)).json(),
    );
    const { runnerId, sessionId, mode, sessionEvaluation, nodeUrl, instanceMetadata } = report.route;
    reports.push(
      JSON.stringify({
        reportId: report.reportId,
        route: { nodeUrl, runnerId, sessionId, mode, sessionEvaluation, instanceMetadata },
        outcome: report.outcome,
        latencyMedianMs: report.latency?.medianMs ?? null,
        hashesPerSecond: report.hashRate?.hashesPerSecond ?? null,
      }),
    );
  }
  say('Their reports (abridged):');
  block(reports);
}

async function trace(stack: TraceStack) {
  const [portA, portB] = stack.responderPorts as [number, number];
  await stack.register({
    runnerId: 'eval-responder-i1',
    app: 'eval-responder',
    port: portA,
    metadata: 'instance=i1',
  });

  say('**1. Three evaluations in one paid session.**');
  let id = await order(stack, { target: { app: 'eval-responder' }, evaluationsPerSession: 3 }, 'trace-1');
  await show(stack, await attempts(stack, 'eval-responder-i1', id, 3));

  say(
    "**2. A responder restart in the middle of a series.** The instance's process is killed while the second evaluation runs and started again on the same port; its runner id stays registered.",
  );
  id = await order(
    stack,
    { target: { app: 'eval-responder', runnerId: 'eval-responder-i1' }, evaluationsPerSession: 2 },
    'trace-2',
  );
  await attempts(stack, 'eval-responder-i1', id, 1);
  await stack.restartResponder(portA);
  await show(stack, await attempts(stack, 'eval-responder-i1', id, 2));
  id = await order(stack, { target: { app: 'eval-responder', runnerId: 'eval-responder-i1' } }, 'trace-2b');
  await show(stack, await attempts(stack, 'eval-responder-i1', id, 1));

  say(
    '**3. An instance replacement.** `i1` unregisters; `i2` registers under a new runner id. The next app-wide run names only `i2`; a run pinned to `i1` finds it gone.',
  );
  await stack.unregister('eval-responder-i1');
  await stack.register({
    runnerId: 'eval-responder-i2',
    app: 'eval-responder',
    port: portB,
    metadata: 'instance=i2',
  });
  id = await order(stack, { target: { app: 'eval-responder' } }, 'trace-3');
  await show(stack, await attempts(stack, 'eval-responder-i2', id, 1));
  id = await order(stack, { target: { app: 'eval-responder', runnerId: 'eval-responder-i1' } }, 'trace-3b');
  await show(stack, await attempts(stack, 'eval-responder-i1', id, 1));

  say(
    '**4. Single-shot calls.** The same responder registered as a single-shot runner at $0.002 per call: every request of the plan is its own paid call, and the report says so.',
  );
  await stack.register({
    runnerId: 'eval-shot-i3',
    app: 'eval-shot',
    port: portB,
    metadata: 'instance=i3',
    singleShot: true,
  });
  id = await order(stack, { target: { app: 'eval-shot' } }, 'trace-4');
  await show(stack, await attempts(stack, 'eval-shot-i3', id, 1), 'eval-shot-i3');

  const everything = [stack.verifier.output(), stack.node.output(), out.join('\n')].join('\n');
  if (everything.includes(SIGNER_CREDENTIAL)) throw new Error('the signer credential appeared in an output');
  say('No line above, no report and no log of the run holds the signer credential (checked by the script).');
}

const stack = await startTraceStack({
  TRANSFER_SECONDS: '1',
  WARMUP_SECONDS: '0.5',
  HASH_SHARES: '200',
  HASH_DIFFICULTY_BITS: '10',
  PAYMENT_INTERVAL_MS: '500',
});
try {
  await trace(stack);
} finally {
  await stack.stop();
}
const text = out.join('\n');
process.stdout.write(`${text}\n`);
if (process.argv.includes('--write')) {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${README} has no ${START} … ${END} section`);
  const next = `${readme.slice(0, start + START.length)}\n\n${text}\n${readme.slice(end)}`;
  // Formatted as the repository's prettier check expects, so a regenerated README passes it.
  const options = (await prettier.resolveConfig(README)) ?? {};
  await writeFile(README, await prettier.format(next, { ...options, filepath: README }));
}
