// The drain-controller of a drain spec, in this process: the environment main.ts would read, and a
// start through the service kit with the world's adjustable clock.
import { EventEmitter } from 'node:events';
import { boundPort, startService } from '@sandbox/service-kit';
import { DrainConfigSchema } from '../config';
import { createDriver } from '../drivers/create-driver';
import { composeDrainController, type DrainParts } from '../service';
import type { RunningController, TestKit } from './drain-world';
import type { WorldMembers } from './world-members';

/** The controller environment of the world, with `env` on top. */
export function drainControllerEnv(
  members: WorldMembers,
  kit: TestKit,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    ...kit.access.env,
    REDIS_URL: members.redis.url,
    QUEUE_PREFIX: members.prefix,
    KEY_PREFIX: `${members.prefix}-drain`,
    // One replica restarted in place: it takes its lease back at once.
    LEASE_HOLDER_ID: 'drain-controller-0',
    ADAPTER_STATE_PREFIX: members.adapterStatePrefix,
    REPLACE_COMMAND: members.sim.replaceCommand,
    NODE_READY_URL: `${members.sim.metricsUrl}/readyz`,
    POLL_MS: '100',
    STEP_LOCK_MS: '2000',
    STEP_STALLED_INTERVAL_MS: '500',
    DEFAULT_QUIET_PERIOD: '0s',
    NODE_READY_TIMEOUT_MS: '30000',
    PORT: '0',
    LOG_LEVEL: 'debug',
    NODE_ENV: 'test',
    DRAIN_DELAY_MS: '0',
    ...env,
  };
}

/** Starts a controller in this process; its log lines are kept, its clock is `now`. */
export async function startInProcessController(options: {
  env: Record<string, string>;
  childEnv: Record<string, string>;
  now: () => number;
  onStop: (running: RunningController) => void;
}): Promise<RunningController> {
  const lines: string[] = [];
  let parts: DrainParts | undefined;
  const { runtime, server } = await startService({
    name: 'drain-controller',
    configSchema: DrainConfigSchema,
    env: options.env,
    compose: (context) =>
      composeDrainController(
        context,
        { driver: createDriver(context.config, options.childEnv), now: options.now },
        (exposed) => (parts = exposed),
      ),
    destination: { write: (line: string) => void lines.push(line) },
    signals: new EventEmitter(),
    exit: () => undefined,
  });
  if (parts === undefined) throw new Error('the controller exposed no parts');
  // Writes wait for the lease: the controller acts once it holds it (its readiness says so).
  while (runtime.health.standby) await new Promise((resolve) => setTimeout(resolve, 10));
  const running: RunningController = {
    parts,
    url: `http://127.0.0.1:${boundPort(server)}`,
    logs: () => lines.join(''),
    async stop() {
      options.onStop(running);
      server.closeAllConnections();
      await runtime.shutdown.run('spec done', 0);
    },
  };
  return running;
}
