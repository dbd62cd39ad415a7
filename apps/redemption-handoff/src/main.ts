import {
  bearerToken,
  createServiceRuntime,
  installSignalHandlers,
  loadConfig,
  readSecretFileText,
} from '@sandbox/service-kit';
import { HandoffConfigSchema, processEnv } from './config';
import { startHandoff } from './handoff';

const config = loadConfig(HandoffConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: 'redemption-handoff',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

try {
  const intakeToken = bearerToken(
    readSecretFileText(config.INTAKE_SECRET_FILE, { scrubber: runtime.secrets }),
  );
  const redeemerToken = bearerToken(
    readSecretFileText(config.REDEEMER_SECRET_FILE, { scrubber: runtime.secrets }),
  );
  await startHandoff(config, runtime, { intakeToken, redeemerToken });
  runtime.logger.info({ port: config.PORT, redeemer: config.REDEEMER_URL }, 'redemption-handoff ready');
} catch (error) {
  runtime.logger.fatal({ err: error }, 'redemption-handoff failed to start');
  await runtime.shutdown.run('start-up failed', 1);
}
