import { createServiceRuntime, installSignalHandlers, loadConfig, serveHttp } from '@sandbox/service-kit';
import { createAdapterService } from './adapter-service';
import { loadBootstrapSecret } from './bootstrap-secret';
import { AdapterConfigSchema, processEnv } from './config';

const config = loadConfig(AdapterConfigSchema, processEnv());
const runtime = createServiceRuntime({
  svc: 'adapter',
  logLevel: config.LOG_LEVEL,
  nodeEnv: config.NODE_ENV,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
installSignalHandlers(process, runtime);

try {
  const bootstrap = loadBootstrapSecret(config.BOOTSTRAP_SECRET_FILE, {
    secrets: runtime.secrets,
    now: Date.now,
    onReloadError: (error) =>
      runtime.logger.error({ err: error }, 'bootstrap secret file unusable; keeping the old value'),
  });
  const service = await createAdapterService({ config, runtime, bootstrap });
  service.registerShutdown(runtime.shutdown);
  await serveHttp(runtime, service.app, { port: config.PORT, host: config.HOST });
  service.start();
  runtime.health.markReady();
  runtime.logger.info(
    { nodeUrl: config.NODE_URL, registrations: service.manager.list().length },
    'adapter ready',
  );
} catch (error) {
  runtime.logger.fatal({ err: error }, 'adapter failed to start');
  await runtime.shutdown.run('startup failed', 1);
}
