import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestAccess, findFreePort, startRedis, type RedisFixture } from '@sandbox/testing';
import { spawnService, waitReady, type ServiceProcess } from './service-process';

/** Options of {@link startHandoffStack}. */
export interface HandoffStackOptions {
  /** Extra environment of redemption-handoff. */
  readonly handoffEnv?: Record<string, string>;
  /** Extra environment of redeemer-sim. */
  readonly redeemerEnv?: Record<string, string>;
}

/**
 * A real Redis (AOF, fsync always), redemption-handoff and redeemer-sim as processes on free loopback
 * ports, each restartable (kill -9 included) on the same data. Credentials live in files under `dir`.
 */
export interface HandoffStack {
  readonly dir: string;
  readonly redis: RedisFixture;
  readonly handoffUrl: string;
  readonly redeemerUrl: string;
  readonly intakeToken: string;
  readonly redeemerToken: string;
  /** `Authorization` with the handoff's read token, for its operator views. */
  readonly readHeaders: Record<string, string>;
  handoff(): ServiceProcess;
  redeemer(): ServiceProcess;
  /** Starts (or restarts after it stopped) the handoff and waits until it is ready; `env` adds to its environment. */
  startHandoff(env?: Record<string, string>): Promise<void>;
  /** Starts (or restarts) the redeemer; `env` adds to its environment for this run. */
  startRedeemer(env?: Record<string, string>): Promise<void>;
  /** Every line every process printed so far, across restarts. */
  output(): string;
  stop(): Promise<void>;
}

/** Short timings so that crash recovery (job locks, outcome polls) takes seconds in tests. */
const FAST_HANDOFF_ENV = {
  DELIVERY_LOCK_MS: '2000',
  DELIVERY_STALLED_INTERVAL_MS: '1000',
  DELIVERY_BACKOFF_BASE_MS: '100',
  DELIVERY_BACKOFF_CAP_MS: '2000',
  OUTCOME_POLL_MS: '200',
  DURABILITY_CHECK_MS: '500',
  RECONCILE_INTERVAL_MS: '5000',
  SHUTDOWN_TIMEOUT_MS: '10000',
  // node-sim's simulated chain counts 12 s blocks from the Unix epoch.
  CHAIN_VIEW: 'clock',
  CHAIN_GENESIS_MS: '0',
};

export async function startHandoffStack(options: HandoffStackOptions = {}): Promise<HandoffStack> {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-stack-'));
  const intakeToken = `intake-${Math.random().toString(36).slice(2)}-token`;
  const redeemerToken = `redeemer-${Math.random().toString(36).slice(2)}-token`;
  writeFileSync(join(dir, 'intake-secret'), intakeToken, { mode: 0o600 });
  writeFileSync(join(dir, 'redeemer-secret'), redeemerToken, { mode: 0o600 });
  const redis = await startRedis();
  const access = createTestAccess();
  const [handoffPort, redeemerPort] = [await findFreePort(), await findFreePort()];
  const handoffUrl = `http://127.0.0.1:${handoffPort}`;
  const redeemerUrl = `http://127.0.0.1:${redeemerPort}`;
  const outputs: ServiceProcess[] = [];
  let handoff: ServiceProcess | undefined;
  let redeemer: ServiceProcess | undefined;

  const startHandoff = async (env: Record<string, string> = {}): Promise<void> => {
    handoff = spawnService('redemption-handoff', 'apps/redemption-handoff/src/main.ts', {
      PORT: String(handoffPort),
      REDIS_URL: redis.url,
      INTAKE_SECRET_FILE: join(dir, 'intake-secret'),
      REDEEMER_URL: redeemerUrl,
      REDEEMER_SECRET_FILE: join(dir, 'redeemer-secret'),
      LOG_LEVEL: 'debug',
      ...access.env,
      ...FAST_HANDOFF_ENV,
      ...options.handoffEnv,
      ...env,
    });
    outputs.push(handoff);
    await waitReady(handoff, handoffUrl);
  };
  const startRedeemer = async (env: Record<string, string> = {}): Promise<void> => {
    redeemer = spawnService('redeemer-sim', 'tools/redeemer-sim/src/main.ts', {
      PORT: String(redeemerPort),
      SIM_DB_PATH: join(dir, 'redeemer', 'redeemer.sqlite'),
      REDEEMER_SECRET_FILE: join(dir, 'redeemer-secret'),
      SIM_WAIT_FOR_PARAMS_EXPIRY: 'false',
      SIM_REDEEM_INTERVAL_MS: '100',
      LOG_LEVEL: 'debug',
      ...options.redeemerEnv,
      ...env,
    });
    outputs.push(redeemer);
    await waitReady(redeemer, redeemerUrl);
  };
  await startRedeemer();
  await startHandoff();

  return {
    dir,
    redis,
    handoffUrl,
    redeemerUrl,
    intakeToken,
    redeemerToken,
    readHeaders: access.headers('read'),
    handoff: () => handoff as ServiceProcess,
    redeemer: () => redeemer as ServiceProcess,
    startHandoff,
    startRedeemer,
    output: () => outputs.map((process) => process.output()).join(''),
    async stop() {
      await Promise.all([handoff?.stop(), redeemer?.stop()]);
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
      access.cleanup();
    },
  };
}
