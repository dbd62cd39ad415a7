import { createServiceRuntime, installSignalHandlers, loadConfig } from '@sandbox/service-kit';
import { DrainConfigSchema, processEnv } from './config';
import { startDrainController } from './drain-controller';
import { createDriver } from './drivers/create-driver';

const env = processEnv();
const config = loadConfig(DrainConfigSchema, env);
const runtime = createServiceRuntime({
  svc: 'drain-controller',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

try {
  const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/' };
  await startDrainController({ config, runtime, driver: createDriver(config, baseEnv) });
  runtime.logger.info({ port: config.PORT, driver: config.ORCHESTRATOR_DRIVER }, 'drain-controller ready');
} catch (error) {
  runtime.logger.fatal({ err: error }, 'drain-controller failed to start');
  await runtime.shutdown.run('start-up failed', 1);
}
