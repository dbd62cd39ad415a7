import { ZodError } from 'zod';
import { createResponder } from './app';
import { loadConfig, processEnv } from './config';
import { jsonLog } from './log';

const SHUTDOWN_TIMEOUT_MS = 5_000;

function readConfig() {
  try {
    return loadConfig(processEnv());
  } catch (error) {
    const problems =
      error instanceof ZodError
        ? error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
        : [String(error)];
    jsonLog('error', 'invalid configuration', { problems });
    process.exit(1);
  }
}

const config = readConfig();
const server = createResponder();
server.listen(config.PORT, config.HOST, () =>
  jsonLog('info', 'listening', { host: config.HOST, port: config.PORT }),
);

// As PID 1 in a container Node gets no default signal handling, so shutdown must be explicit.
let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  jsonLog('info', 'shutting down', { signal });
  setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
  server.close(() => process.exit(0));
  server.closeIdleConnections();
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
