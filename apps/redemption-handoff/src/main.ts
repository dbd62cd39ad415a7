import { startService } from '@sandbox/service-kit';
import { isIntakeRequest } from './app';
import { HandoffConfigSchema, processEnv } from './config';
import { composeHandoff } from './service';

await startService({
  name: 'redemption-handoff',
  configSchema: HandoffConfigSchema,
  env: processEnv(),
  access: { exempt: isIntakeRequest },
  compose: (context) => composeHandoff(context),
});
