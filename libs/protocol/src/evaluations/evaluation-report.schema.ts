import { z } from 'zod';
import { AppNameSchema, EvaluationIdSchema, RunnerIdSchema, SessionIdSchema } from '../common/ids.schema';
import { ReasonSchema, TimestampSchema, VersionSchema } from '../common/fields.schema';
import { EvaluationTriggerSchema } from '../queues/evaluations.queue';

/** Persistent: a report names its schema, and readers refuse versions they do not know. */
export const EVALUATION_REPORT_V1 = 'sandbox.evaluation-report.v1';

const hex = (bytes: number) =>
  z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`, 'u'), {
    message: `must be ${bytes * 2} lowercase hex characters`,
  });
const count = z.number().int().nonnegative();
const ms = z.number().nonnegative();

/** Who wrote the report: the verifier's identity, version and Ed25519 public key. */
export const ReportVerifierSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/u, { message: 'must be 1-64 of A-Z a-z 0-9 . _ -' }),
  version: VersionSchema,
  /** Raw 32-byte Ed25519 public key, hex. */
  publicKey: hex(32),
});

/** Where a report sits among the evaluations that shared its Node session: `index` of `count`. */
export const SessionEvaluationSchema = z
  .strictObject({ index: z.number().int().min(1), count: z.number().int().min(1) })
  .refine((place) => place.index <= place.count, { message: 'index must not exceed count' });

/** The path the verifier reached the target through, as Node showed it. */
export const ReportRouteSchema = z.strictObject({
  /** Node's address as its discovery gives it: where the measured requests went. */
  orchestratorUrl: z.url({ protocol: /^https?$/u }).max(2048),
  /**
   * The URL the verifier reached Node by (its `NODE_URL`): Node's public URL when the platform runs
   * it, loopback in the development layout. Absent in reports written before it was recorded.
   */
  nodeUrl: z
    .url({ protocol: /^https?$/u })
    .max(2048)
    .optional(),
  runnerId: RunnerIdSchema,
  sessionId: SessionIdSchema.nullable(),
  /**
   * How the runner was measured: in one paid `persistent` session, or `single-shot`, every request its
   * own paid call (then `sessionId` is null). Absent in reports written before single-shot runners
   * were measured (then persistent).
   */
  mode: z.enum(['persistent', 'single-shot']).optional(),
  /** Absent in reports written before sessions held several evaluations (then one of one). */
  sessionEvaluation: SessionEvaluationSchema.optional(),
  app: AppNameSchema,
  appVersion: VersionSchema.optional(),
  /** Node's discovery `metadata` of the runner (instance metadata), when it advertised one. */
  instanceMetadata: z.string().min(1).max(1024).optional(),
  /** Price per second in wei as advertised, as a decimal string (it can exceed 2^53). */
  priceWeiPerSecond: z
    .string()
    .regex(/^\d{1,78}$/u)
    .optional(),
});

/** The plan's parameters, so a reader can judge and reproduce the method. */
export const ReportPlanSchema = z.strictObject({
  latencyProbes: z.number().int().min(1),
  /** Pause after each latency answer before the next probe (absent in reports made before it was recorded). */
  latencyGapMs: z.number().int().min(0).max(10_000).optional(),
  transferSeconds: z.number().positive(),
  warmupSeconds: z.number().nonnegative(),
  maxTransferBytes: z.number().int().positive(),
  hashShares: z.number().int().min(1),
  hashDifficultyBits: z.number().int().min(0).max(64),
  runTimeoutMs: z.number().int().positive(),
});

/** sha256 of the run's seed: proves which seed was used once it is revealed, never the seed itself. */
export const SeedCommitmentSchema = z.strictObject({ algorithm: z.literal('sha256'), value: hex(32) });

/** Round-trip times of zero-work echoes, measured on the verifier. */
export const LatencyResultSchema = z.strictObject({
  samples: z.number().int().min(1),
  minMs: ms,
  medianMs: ms,
  p95Ms: ms,
  /** Mean absolute difference of consecutive samples. */
  jitterMs: ms,
});

/** One direction of throughput, counted by the receiver after the warm-up. */
export const ThroughputResultSchema = z.strictObject({
  bytes: count,
  seconds: z.number().positive(),
  megabitsPerSecond: z.number().nonnegative(),
  warmupBytes: count,
});

/** Hash rate from checked shares timed on the verifier. */
export const HashRateResultSchema = z.strictObject({
  shares: z.number().int().min(1),
  difficultyBits: z.number().int().min(0).max(64),
  seconds: z.number().positive(),
  hashesPerSecond: z.number().nonnegative(),
  /** ≈ 1/√shares: the relative standard error of the estimate. */
  relativeStdError: z.number().nonnegative(),
});

/** Kinds of failed requests the verifier counts; persistent (dashboards match on them). */
export const FailureKindSchema = z.enum([
  'timeout',
  'reset',
  'http-5xx',
  'http-4xx',
  'corrupt-bytes',
  'invalid-share',
  'payment',
  'other',
]);
export type FailureKind = z.infer<typeof FailureKindSchema>;

export const ReliabilityResultSchema = z.strictObject({
  requests: count,
  failures: z.strictObject(
    Object.fromEntries(FailureKindSchema.options.map((kind) => [kind, count])) as Record<
      FailureKind,
      typeof count
    >,
  ),
  resets: count,
});

/** Who failed: the target path, the verifier's own platform, nobody, or undecidable evidence. */
export const AttributionSchema = z.enum(['none', 'target', 'platform', 'unknown']);
export type Attribution = z.infer<typeof AttributionSchema>;

export const ReportOutcomeSchema = z
  .strictObject({
    status: z.enum(['pass', 'fail']),
    attribution: AttributionSchema,
    /** A fixed machine-readable code, `ok` on a pass. */
    reasonCode: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/u),
    reason: ReasonSchema.optional(),
  })
  .refine((outcome) => (outcome.status === 'pass') === (outcome.attribution === 'none'), {
    message: 'a pass has attribution none, a failure has one of target, platform or unknown',
  });

/** The signed content of a report. Every object is strict: unknown fields are refused. */
export const EvaluationReportSchema = z.strictObject({
  schemaVersion: z.literal(EVALUATION_REPORT_V1),
  reportId: EvaluationIdSchema,
  evaluationId: EvaluationIdSchema,
  trigger: EvaluationTriggerSchema,
  verifier: ReportVerifierSchema,
  startedAt: TimestampSchema,
  finishedAt: TimestampSchema,
  /** When the result stops being current. */
  validUntil: TimestampSchema,
  route: ReportRouteSchema,
  seedCommitment: SeedCommitmentSchema,
  plan: ReportPlanSchema,
  outcome: ReportOutcomeSchema,
  latency: LatencyResultSchema.nullable(),
  download: ThroughputResultSchema.nullable(),
  upload: ThroughputResultSchema.nullable(),
  hashRate: HashRateResultSchema.nullable(),
  reliability: ReliabilityResultSchema,
});
export type EvaluationReport = z.infer<typeof EvaluationReportSchema>;

/**
 * How the report is bound to the verifier: sha256 of its RFC 8785 canonical JSON, and an Ed25519
 * signature of those canonical bytes by `report.verifier.publicKey`.
 */
export const ReportIntegritySchema = z.strictObject({
  canonicalization: z.literal('RFC8785'),
  digestAlgorithm: z.literal('sha256'),
  digest: hex(32),
  signatureAlgorithm: z.literal('Ed25519'),
  signatureValue: hex(64),
});

/** A report as stored, served and verified offline. */
export const SignedEvaluationReportSchema = z.strictObject({
  report: EvaluationReportSchema,
  integrity: ReportIntegritySchema,
});
export type SignedEvaluationReport = z.infer<typeof SignedEvaluationReportSchema>;
