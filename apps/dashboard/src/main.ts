import { startService } from '@sandbox/service-kit';
import { DashboardConfigSchema, processEnv } from './config';
import { composeDashboard } from './service';

await startService({
  name: 'dashboard',
  configSchema: DashboardConfigSchema,
  env: processEnv(),
  // A browser opens the board: it asks for the token as a basic-auth password.
  access: { basicAuth: true },
  compose: composeDashboard,
});
