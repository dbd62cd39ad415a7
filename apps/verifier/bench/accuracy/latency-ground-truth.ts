import type { LatencyResult } from '../../src/plan/latency.step';
import {
  addNetemDelay,
  clearShaping,
  startDelayLine,
  type DelayLineStats,
  type InstanceLink,
} from './link-shaping';

/** The delay the latency check adds, and how many unshaped/delayed rounds it averages. */
export const DELAY_MS = 20;
export const LATENCY_ROUNDS = 3;

/** One run of the verifier's latency step. */
export type Latency = () => Promise<LatencyResult>;
/** A comment line: how the figures were obtained (`npm run bench` shows it, never as a figure). */
const note = (text: string) => void process.stdout.write(`# ${text}\n`);
/** Switches the ground-truth delay on and off; `stop` ends it and says how late it was. */
interface DelaySwitch {
  engage(): Promise<void>;
  release(): Promise<void>;
  stop(): Promise<DelayLineStats | undefined>;
}

async function delaySwitch(link: InstanceLink, netem: boolean, dir: string): Promise<DelaySwitch> {
  if (netem) {
    note(`latency ground truth: netem delay ${DELAY_MS}ms on the inside end of the veth`);
    return {
      engage: () => addNetemDelay(link, DELAY_MS),
      release: () => clearShaping(link),
      stop: async () => undefined,
    };
  }
  note(
    `latency ground truth: no sch_netem in this kernel; delay line (NFQUEUE verdicts held ${DELAY_MS} ms ` +
      'at the host end of the veth, every packet leaving the sandbox), not netem',
  );
  return startDelayLine(link, DELAY_MS, dir);
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The latency step alone, unshaped and then through the ground-truth delay, back to back, for
 * `LATENCY_ROUNDS` rounds (the host's noise moves a 20-sample median by a millisecond or more).
 */
export async function delayedLatency(link: InstanceLink, netem: boolean, dir: string, latency: Latency) {
  const delay = await delaySwitch(link, netem, dir);
  const rounds: { base: LatencyResult; delayed: LatencyResult }[] = [];
  let stats: DelayLineStats | undefined;
  try {
    for (let round = 0; round < LATENCY_ROUNDS; round += 1) {
      const base = await latency();
      await delay.engage();
      const delayed = await latency().finally(() => delay.release());
      rounds.push({ base, delayed });
    }
  } finally {
    stats = await delay.stop();
  }
  const added = (pick: (result: LatencyResult) => number) =>
    mean(rounds.map(({ base, delayed }) => pick(delayed) - pick(base)));
  return {
    baseMs: mean(rounds.map(({ base }) => base.medianMs)),
    delayedMs: mean(rounds.map(({ delayed }) => delayed.medianMs)),
    addedMedianMs: added((result) => result.medianMs),
    addedMinMs: added((result) => result.minMs),
    // The RTT figures are medians, so the delay they are held against adds the median lateness.
    appliedMs: DELAY_MS + (stats?.medianLateUs ?? 0) / 1000,
    delayLine: stats,
  };
}
