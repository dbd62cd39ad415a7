// `npm start`: runs the whole system on its embedded defaults, prefixing each member's log lines,
// and on Ctrl-C (or SIGTERM) stops the members in reverse order.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '@sandbox/service-kit';
import { inheritedEnv, processEnv, StackConfigSchema } from './config';
import { runStack } from './run-stack';
import { stackMembers } from './stack-members';
import { ensureStackSecrets } from './stack-secrets';

const env = processEnv();
const config = loadConfig(StackConfigSchema, env);
const root = process.cwd();
const dataDir = resolve(root, config.STACK_DATA_DIR);
for (const folder of ['redis', 'node-sim', 'redeemer-sim'])
  mkdirSync(resolve(dataDir, folder), { recursive: true });

const secrets = ensureStackSecrets(dataDir);
const members = stackMembers(config, {
  root,
  dataDir,
  secrets,
  isRoot: process.getuid?.() === 0,
  nodePath: process.execPath,
  baseEnv: inheritedEnv(env),
});
if (!members.some((member) => member.name === 'instance-manager')) {
  process.stdout.write(
    'stack: not root, so instance-manager (network namespaces, iptables) is not started\n',
  );
}
process.exitCode = await runStack(members, process);
