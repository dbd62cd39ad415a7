import { startService } from '@sandbox/service-kit';
import { AdapterConfigSchema, processEnv } from './config';
import { composeAdapter } from './service';

await startService({
  name: 'adapter',
  configSchema: AdapterConfigSchema,
  env: processEnv(),
  compose: (context) => composeAdapter(context),
});
