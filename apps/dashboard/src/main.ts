import { startService } from '@sandbox/service-kit';
import { DashboardConfigSchema, processEnv } from './config';
import { composeDashboard } from './service';

await startService({
  name: 'dashboard',
  configSchema: DashboardConfigSchema,
  env: processEnv(),
  compose: composeDashboard,
});
