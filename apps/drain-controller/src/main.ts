import { startService } from '@sandbox/service-kit';
import { DrainConfigSchema, processEnv } from './config';
import { createDriver } from './drivers/create-driver';
import { composeDrainController } from './service';

const env = processEnv();
await startService({
  name: 'drain-controller',
  configSchema: DrainConfigSchema,
  env,
  compose: (context) =>
    composeDrainController(context, {
      driver: createDriver(context.config, { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/' }),
    }),
});
