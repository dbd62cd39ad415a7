import { startService } from '@sandbox/service-kit';
import { InstanceManagerConfigSchema, processEnv } from './config';
import { composeInstanceManager } from './service';

await startService({
  name: 'instance-manager',
  configSchema: InstanceManagerConfigSchema,
  env: processEnv(),
  compose: composeInstanceManager,
});
