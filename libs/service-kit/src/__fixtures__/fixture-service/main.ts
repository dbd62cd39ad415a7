// A minimal service built the way every app's main.ts is: one startService call.
import { AppError, createHttpApp, readSecretFileText, startService } from '../../index';
import type { ServiceRuntime } from '../../index';
import { FixtureConfigSchema, processEnv } from './config';
import type { FixtureConfig } from './config';

await startService({
  name: 'fixture',
  configSchema: FixtureConfigSchema,
  env: processEnv(),
  compose: ({ config, runtime, access }) => {
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
      access,
      configure: (router) => {
        router.post('/release', (_req, res) => {
          release();
          res.json({ released: true });
        });
      },
    });
    return { app };
  },
});

function logCanary(
  { logger, secrets }: ServiceRuntime,
  path: NonNullable<FixtureConfig['FIXTURE_CANARY_FILE']>,
): void {
  const canary = readSecretFileText(path, { scrubber: secrets });
  logger.info({ registration: { node: { bootstrapSecret: canary } } }, 'canary as a field at depth');
  logger.info({ note: `value ${canary} inside a field` }, 'canary inside a string field');
  logger.info(`canary ${canary} inside the message`);
  const error = new AppError('internal', `failed with ${canary}`, {
    cause: new Error(`cause ${canary}`),
  });
  logger.error({ err: error }, 'canary inside an error');
}
