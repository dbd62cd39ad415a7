import type { RunEvaluation } from '@sandbox/protocol';
import type { DiscoveredRunner } from '../node/discovery';
import type { HashRateResult } from '../plan/hash.step';
import type { LatencyResult } from '../plan/latency.step';
import type { ThroughputResult } from '../plan/throughput';
import type { RunFault } from './faults';
import type { ReliabilityCounter } from './reliability';

/** The results of the steps that finished (null for those that did not run or failed). */
export interface Measurements {
  latency: LatencyResult | null;
  download: ThroughputResult | null;
  upload: ThroughputResult | null;
  hashRate: HashRateResult | null;
}

/** What one run observed, before it becomes a report. Holds no secret (only the seed's commitment). */
export interface RunRecord {
  job: RunEvaluation;
  /** This evaluation's id: the job's, or `<job's>-<index>` when the session holds several. */
  evaluationId: string;
  /** Its place among the evaluations of its session. */
  sessionEvaluation: { index: number; count: number };
  startedAt: number;
  finishedAt: number;
  runner: DiscoveredRunner | undefined;
  sessionId: string | null;
  seedCommitment: string;
  results: Measurements;
  reliability: ReliabilityCounter;
  fault: RunFault | undefined;
}
