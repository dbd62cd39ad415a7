import {
  EvaluationAttemptSchema,
  SignedEvaluationReportSchema,
  type EvaluationAttempt,
  type SignedEvaluationReport,
} from '@sandbox/protocol';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createOrderBook, type OrderBook } from './order-book';
import { applyAttempt, MAX_ATTEMPTS, type AttemptOutcome, type TargetRecord } from './freshness';

const TargetRecordSchema = z.strictObject({
  runnerId: z.string(),
  app: z.string(),
  current: z
    .strictObject({
      state: z.enum(['pass', 'fail', 'unknown']),
      reportId: z.string(),
      attribution: z.enum(['none', 'target', 'platform', 'unknown']),
      reasonCode: z.string(),
      finishedAt: z.string(),
      validUntil: z.string(),
      carriedForward: z.boolean(),
    })
    .nullable(),
  attempts: z.array(EvaluationAttemptSchema),
});

/** A run that started and has not finished: found again when its job is retried after a crash. */
const InflightRunSchema = z.strictObject({
  evaluationId: z.string(),
  runnerId: z.string(),
  app: z.string(),
  trigger: z.enum(['scheduled', 'on-demand']),
  startedAt: z.string(),
});
export type InflightRun = z.infer<typeof InflightRunSchema>;

/** Reports, target records and in-flight markers in Redis, under one key prefix. */
export interface EvaluationStore {
  /** On-demand orders by `Idempotency-Key`, kept as long as reports. */
  orders: OrderBook;
  saveReport(signed: SignedEvaluationReport): Promise<void>;
  getReport(reportId: string): Promise<SignedEvaluationReport | undefined>;
  /** Applies an attempt to its target's record atomically (optimistic WATCH/MULTI). */
  recordAttempt(target: { runnerId: string; app: string }, outcome: AttemptOutcome): Promise<TargetRecord>;
  getTarget(runnerId: string): Promise<TargetRecord | undefined>;
  listTargets(): Promise<TargetRecord[]>;
  /** Records an attempt that reached no runner of the app (newest first, bounded). */
  recordAppAttempt(app: string, attempt: EvaluationAttempt): Promise<void>;
  getAppAttempts(app: string): Promise<EvaluationAttempt[]>;
  markInflight(run: InflightRun): Promise<InflightRun | undefined>;
  clearInflight(evaluationId: string): Promise<void>;
}

const MAX_WATCH_RETRIES = 10;

export function createEvaluationStore(
  redis: Redis,
  keyPrefix: string,
  reportTtlSeconds: number,
): EvaluationStore {
  const key = {
    report: (id: string) => `${keyPrefix}:report:${id}`,
    target: (id: string) => `${keyPrefix}:target:${id}`,
    targets: `${keyPrefix}:targets`,
    inflight: (id: string) => `${keyPrefix}:inflight:${id}`,
    appAttempts: (app: string) => `${keyPrefix}:app-attempts:${app}`,
  };
  const parseTarget = (text: string | null) =>
    text === null ? undefined : TargetRecordSchema.parse(JSON.parse(text));

  return {
    orders: createOrderBook(redis, keyPrefix, reportTtlSeconds),
    async saveReport(signed) {
      await redis.set(key.report(signed.report.reportId), JSON.stringify(signed), 'EX', reportTtlSeconds);
    },
    async getReport(reportId) {
      const text = await redis.get(key.report(reportId));
      return text === null ? undefined : SignedEvaluationReportSchema.parse(JSON.parse(text));
    },
    async recordAttempt(target, outcome) {
      for (let attempt = 0; attempt < MAX_WATCH_RETRIES; attempt += 1) {
        await redis.watch(key.target(target.runnerId));
        const next = applyAttempt(parseTarget(await redis.get(key.target(target.runnerId))), outcome, target);
        const done = await redis
          .multi()
          .set(key.target(target.runnerId), JSON.stringify(next))
          .sadd(key.targets, target.runnerId)
          .exec();
        if (done !== null) return next;
      }
      throw new Error('target record kept changing; attempt not recorded');
    },
    getTarget: async (runnerId) => parseTarget(await redis.get(key.target(runnerId))),
    async listTargets() {
      const ids = (await redis.smembers(key.targets)).sort();
      if (ids.length === 0) return [];
      const texts = await redis.mget(ids.map(key.target));
      return texts.flatMap((text) => parseTarget(text) ?? []);
    },
    async recordAppAttempt(app, attempt) {
      await redis
        .multi()
        .lpush(key.appAttempts(app), JSON.stringify(EvaluationAttemptSchema.parse(attempt)))
        .ltrim(key.appAttempts(app), 0, MAX_ATTEMPTS - 1)
        .exec();
    },
    async getAppAttempts(app) {
      const texts = await redis.lrange(key.appAttempts(app), 0, MAX_ATTEMPTS - 1);
      return texts.map((text) => EvaluationAttemptSchema.parse(JSON.parse(text)));
    },
    async markInflight(run) {
      const previous = await redis.getset(key.inflight(run.evaluationId), JSON.stringify(run));
      return previous === null ? undefined : InflightRunSchema.parse(JSON.parse(previous));
    },
    async clearInflight(evaluationId) {
      await redis.del(key.inflight(evaluationId));
    },
  };
}
