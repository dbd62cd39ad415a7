// A minimal service built the way every app's main.ts is: config, runtime, signals, app, listen, ready.
import {
  AppError,
  createHttpApp,
  createServiceRuntime,
  installSignalHandlers,
  loadConfig,
  readSecretFileText,
  serveHttp,
} from '../../index';
import type { ServiceRuntime } from '../../index';
import { FixtureConfigSchema, processEnv } from './config';
import type { FixtureConfig } from './config';

const config = loadConfig(FixtureConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: config.FIXTURE_NAME,
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
if (config.FIXTURE_HOLD_SHUTDOWN) runtime.shutdown.register('readiness', 'hold-for-test', () => released);
if (config.FIXTURE_HANG_WORKERS)
  runtime.shutdown.register('workers', 'hang-for-test', () => new Promise(() => undefined));
if (config.FIXTURE_CANARY_FILE !== undefined) logCanary(runtime, config.FIXTURE_CANARY_FILE);

const app = createHttpApp({
  ...runtime,
  configure: (router) => {
    router.post('/release', (_req, res) => {
      release();
      res.json({ released: true });
    });
  },
});
await serveHttp(runtime, app, { port: config.PORT, host: config.HOST });
runtime.health.markReady();

function logCanary(
  { logger, secrets }: ServiceRuntime,
  path: NonNullable<FixtureConfig['FIXTURE_CANARY_FILE']>,
): void {
  const canary = readSecretFileText(path, { scrubber: secrets });
  logger.info({ registration: { node: { bootstrapSecret: canary } } }, 'canary as a field at depth');
  logger.info({ note: `value ${canary} inside a field` }, 'canary inside a string field');
  logger.info(`canary ${canary} inside the message`);
  const error = new AppError('internal', 500, `failed with ${canary}`, {
    cause: new Error(`cause ${canary}`),
  });
  logger.error({ err: error }, 'canary inside an error');
}
