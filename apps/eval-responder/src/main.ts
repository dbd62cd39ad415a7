import { startService } from '@sandbox/service-kit';
import { createResponder, RESPONDER_SERVER_OPTIONS } from './app';
import { processEnv, ResponderConfigSchema } from './config';

// As PID 1 in a container Node gets no default signal handling; the kit installs SIGTERM/SIGINT.
await startService({
  name: 'eval-responder',
  configSchema: ResponderConfigSchema,
  env: processEnv(),
  compose: ({ runtime }) => ({
    app: createResponder({ logger: runtime.logger }),
    server: RESPONDER_SERVER_OPTIONS,
  }),
});
