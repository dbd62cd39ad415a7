// `npm start`: runs the whole system on its embedded defaults, keeps each member running (restarting
// one that exits), and on Ctrl-C (or SIGTERM) stops the members in reverse order and then the app
// instances (`npm start -- --keep-instances` leaves those running for the next start to adopt).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '@sandbox/service-kit';
import { pino } from 'pino';
import { inheritedEnv, processEnv, StackConfigSchema } from './config';
import { createStackConsole } from './console';
import { restrictRedisData } from './redis-data';
import { runStack } from './run-stack';
import { localInstances } from './stack-instances';
import { stackMembers } from './stack-members';
import { ensureStackSecrets } from './stack-secrets';

const env = processEnv();
const config = loadConfig(StackConfigSchema, env);
const keepInstances = config.STACK_KEEP_INSTANCES || process.argv.includes('--keep-instances');
const root = process.cwd();
const dataDir = resolve(root, config.STACK_DATA_DIR);
for (const folder of ['node-sim', 'redeemer-sim']) mkdirSync(resolve(dataDir, folder), { recursive: true });
restrictRedisData(resolve(dataDir, 'redis'));

// A closed stdout (its reader gone) must not crash the stack before it stops its members.
process.stdout.on('error', () => undefined);
const out = createStackConsole({
  write: (text) => void (process.stdout.writable && process.stdout.write(text)),
  pretty:
    config.STACK_CONSOLE === 'pretty' || (config.STACK_CONSOLE === 'auto' && process.stdout.isTTY === true),
});

const secrets = ensureStackSecrets(dataDir);
const isRoot = process.getuid?.() === 0;
const members = stackMembers(config, {
  root,
  dataDir,
  secrets,
  isRoot,
  nodePath: process.execPath,
  baseEnv: inheritedEnv(env),
});
const runsInstances = members.some((member) => member.name === 'instance-manager');
if (!runsInstances) out.say('not root, so instance-manager (network namespaces, iptables) is not started');
const driverLog = pino(
  { level: 'warn', base: { svc: 'stack' } },
  { write: (line: string) => out.member('stack', line.trimEnd()) },
);
process.exitCode = await runStack(members, {
  console: out,
  signals: process,
  keepInstances,
  ...(runsInstances
    ? {
        instances: localInstances({
          prefix: config.INSTANCE_PREFIX,
          subnet: config.INSTANCE_SUBNET,
          logger: driverLog,
        }),
      }
    : {}),
});
