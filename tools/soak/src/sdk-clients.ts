import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Prng } from './prng';
import type { HeldSession } from './session-cuts';

/** The official Python SDK's client script, as the local e2e suite runs it. */
const SDK_CLIENT = resolve(process.cwd(), 'e2e/local/sdk_client.py');

/** What the clients did, for the report and the session-cut check. */
export interface ClientTally {
  sessions: number;
  failures: number;
  held: HeldSession[];
  /** The last failures' messages (a few, for the log). */
  lastErrors: string[];
}

interface Step {
  step: string;
  atMs: number;
  fields: Record<string, unknown>;
}

/** Runs the script once in its own process group; kills the group on abort or after `timeoutMs`. */
function runSdkClient(
  python: string,
  args: string[],
  timeoutMs: number,
  signal: AbortSignal,
  livePids: Set<number>,
): Promise<{ steps: Step[]; code: number | null }> {
  return new Promise((done) => {
    const child = spawn(python, [SDK_CLIENT, ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = child.pid;
    if (pid !== undefined) livePids.add(pid);
    const steps: Step[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const fields = JSON.parse(line) as Record<string, unknown>;
          steps.push({ step: String(fields.step), atMs: Date.now(), fields });
        } catch {
          // Not a step line.
        }
      }
    });
    const kill = () => {
      if (pid !== undefined && child.exitCode === null) process.kill(-pid, 'SIGKILL');
    };
    const timer = setTimeout(kill, timeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    child.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      if (pid !== undefined) livePids.delete(pid);
      done({ steps, code });
    });
  });
}

function noteFailure(tally: ClientTally, steps: Step[], code: number | null): void {
  tally.failures += 1;
  const error = steps.find((s) => s.step === 'error')?.fields;
  const message = error ? `${String(error.type)}: ${String(error.message)}` : `exit ${code}`;
  tally.lastErrors = [...tally.lastErrors.slice(-9), message.slice(0, 300)];
}

/** Options of the client loops. */
export interface ClientOptions {
  python: string;
  nodeUrl: string;
  apps: readonly string[];
  rng: Prng;
  signal: AbortSignal;
  livePids: Set<number>;
}

/** Discover, reserve (paid), HTTP, SSE, WebSocket, stop: again and again, over the session apps. */
export async function flowLoop(options: ClientOptions, tally: ClientTally): Promise<void> {
  while (!options.signal.aborted) {
    const app = options.rng.pick(options.apps);
    const args = [options.nodeUrl, app, options.nodeUrl];
    const { steps, code } = await runSdkClient(
      options.python,
      args,
      90_000,
      options.signal,
      options.livePids,
    );
    if (options.signal.aborted) return;
    if (code === 0 && steps.at(-1)?.step === 'stopped') tally.sessions += 1;
    else noteFailure(tally, steps, code);
    await sleep(options.rng.int(500, 3_000));
  }
}

/** Holds a session with an SSE stream for 15 to 45 s; a stream cut early is recorded for the check. */
export async function holdLoop(options: ClientOptions, tally: ClientTally): Promise<void> {
  while (!options.signal.aborted) {
    const app = options.rng.pick(options.apps);
    const holdMs = options.rng.int(15, 45) * 1_000;
    const args = [options.nodeUrl, app, options.nodeUrl, '--hold-seconds', String(holdMs / 1_000)];
    const { steps, code } = await runSdkClient(
      options.python,
      args,
      holdMs + 60_000,
      options.signal,
      options.livePids,
    );
    if (options.signal.aborted) return;
    const streaming = steps.find((s) => s.step === 'streaming');
    const ended = steps.find((s) => s.step === 'stream-ended');
    if (streaming && ended) {
      const error = ended.fields.error;
      tally.held.push({
        app,
        startMs: streaming.atMs,
        endMs: ended.atMs,
        holdMs,
        ...(typeof error === 'string' ? { cut: error.slice(0, 200) } : {}),
      });
    }
    if (code === 0 && steps.at(-1)?.step === 'stopped') tally.sessions += 1;
    else noteFailure(tally, steps, code);
    await sleep(options.rng.int(500, 3_000));
  }
}
