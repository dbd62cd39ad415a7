import {
  bearerToken,
  createServiceRuntime,
  installSignalHandlers,
  loadConfig,
  readSecretFileText,
  serveHttp,
} from '@sandbox/service-kit';
import { createSignatureVerifier } from '@sandbox/tickets';
import { createApp } from './app';
import { processEnv, RedeemerSimConfigSchema } from './config';
import { createRedeemLoop } from './ledger/redeem-loop';
import { SimChain } from './ledger/sim-chain';
import { rememberChecks } from './ledger/verdict-memo';
import { SimStore } from './store/sim-store';

const config = loadConfig(RedeemerSimConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: 'redeemer-sim',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

const token = bearerToken(readSecretFileText(config.REDEEMER_SECRET_FILE, { scrubber: runtime.secrets }));
const now = Date.now;
const store = new SimStore(config.SIM_DB_PATH);
runtime.shutdown.register('redis', 'sqlite', () => store.close());
const chain = new SimChain(store, {
  blockMs: config.CHAIN_BLOCK_MS,
  roundBlocks: config.CHAIN_ROUND_BLOCKS,
  genesisMs: config.CHAIN_GENESIS_MS,
  now,
});
// Each ticket is checked on delivery and again on redemption: the second check reuses the verdict.
const check = rememberChecks(createSignatureVerifier(), 20_000);
const loop = createRedeemLoop({
  store,
  chain,
  check,
  logger: runtime.logger,
  now,
  intervalMs: config.SIM_REDEEM_INTERVAL_MS,
  validityRounds: config.TICKET_VALIDITY_ROUNDS,
  waitForParamsExpiry: config.SIM_WAIT_FOR_PARAMS_EXPIRY,
  defaultFunds: {
    deposit: BigInt(config.SIM_DEFAULT_DEPOSIT_WEI),
    reserve: BigInt(config.SIM_DEFAULT_RESERVE_WEI),
    withdrawRound: undefined,
  },
});
loop.start();
runtime.shutdown.register('workers', 'redeem-loop', () => loop.stop());

const faults = {
  current: {
    latencyMs: config.SIM_LATENCY_MS,
    failureRate: config.SIM_FAILURE_RATE,
    lostAckRate: config.SIM_LOST_ACK_RATE,
    outage: config.SIM_OUTAGE,
  },
  random: Math.random,
};
const app = createApp({
  ...runtime,
  store,
  chain,
  faults,
  check,
  token,
  now,
  redeemNow: loop.tick,
  ...(config.SIM_RECIPIENT === undefined ? {} : { recipient: config.SIM_RECIPIENT }),
});
const server = await serveHttp(runtime, app, {
  port: config.PORT,
  host: config.HOST,
  forceCloseAfterMs: 1_000,
});
runtime.health.markReady();
runtime.logger.info(
  { url: `http://${config.HOST}:${(server.address() as { port: number }).port}` },
  'redeemer-sim listening',
);
