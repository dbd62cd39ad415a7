import { startService } from '@sandbox/service-kit';
import { processEnv, VerifierConfigSchema } from './config';
import { composeVerifier } from './service';

await startService({
  name: 'verifier',
  configSchema: VerifierConfigSchema,
  env: processEnv(),
  compose: (context) => composeVerifier(context),
});
