import { startService } from '@sandbox/service-kit';
import { HandoffConfigSchema, processEnv } from './config';
import { composeHandoff } from './service';

await startService({
  name: 'redemption-handoff',
  configSchema: HandoffConfigSchema,
  env: processEnv(),
  compose: (context) => composeHandoff(context),
});
