import { ConfigError, loadProcessConfig } from './config';
import { createExampleApp } from './app';
import { jsonLog } from './log';

const SHUTDOWN_TIMEOUT_MS = 5_000;

function readConfig() {
  try {
    return loadProcessConfig();
  } catch (error) {
    jsonLog('error', 'invalid configuration', {
      problems: error instanceof ConfigError ? error.problems : [String(error)],
    });
    process.exit(1);
  }
}

const config = readConfig();
const app = createExampleApp();
app.server.listen(config.port, config.host, () =>
  jsonLog('info', 'listening', { host: config.host, port: config.port }),
);

// As PID 1 in a container Node gets no default signal handling, so shutdown must be explicit.
let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  jsonLog('info', 'shutting down', { signal });
  setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  app.server.close(() => process.exit(0));
  app.endStreams();
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
