import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentEnv, startTsProcess } from '@sandbox/testing';
import { monotonicClock } from '@sandbox/service-kit';
import { runCommand } from './command-runner';
import type { SandboxDriver } from './local-driver';
import { createLocalDriver } from './local-driver';
import { instanceNames } from './naming';
import { leftovers, NO_LEFTOVERS } from './test-support/leaks.fixture';
import { describeAsRoot } from './test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from './test-support/example-app.fixture';

const PREFIX = 'stc';
const SUBNET = '10.214.3.0/24';
const HEALTH = { type: 'http', path: '/healthz', expectedStatus: 200 } as const;
const STARTER = join(dirname(fileURLToPath(import.meta.url)), 'test-support', 'endless-starter.fixture.ts');

let image = '';
const freshDriver = (): SandboxDriver =>
  createLocalDriver({ logger: testLogger, prefix: PREFIX, subnet: SUBNET });

async function removeEverything(driver: SandboxDriver): Promise<number> {
  const found = await driver.list();
  for (const entry of found) await driver.stop(entry.instanceId);
  return found.length;
}

/** Runs the endless starter in its own process group and kills the group with SIGKILL after `ms`. */
async function crashWhileStarting(ms: number): Promise<string[]> {
  const child = startTsProcess(STARTER, [PREFIX, SUBNET, image], { env: parentEnv() });
  await monotonicClock.sleep(ms);
  await child.kill();
  const ids = child.stdout().split('\n').filter(Boolean);
  return ids;
}

describeAsRoot('recovery after the driver process crashed', () => {
  beforeAll(async () => {
    image = await exampleImage();
    await removeEverything(freshDriver());
  }, 120_000);

  afterAll(async () => {
    await removeEverything(freshDriver());
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 120_000);

  it('adopts complete instances and finds partial ones after a restart', async () => {
    const first = freshDriver();
    const kept = await first.start(exampleSpec(image, { labels: { app: 'kept' } }));
    const broken = await first.start(exampleSpec(image));
    // A crash between steps: the container is gone but its namespace, veth and chains remain.
    await runCommand('podman', ['rm', '--force', instanceNames(PREFIX, broken.instanceId).container]);
    await runCommand('ip', ['netns', 'add', `${PREFIX}-nscrashed1`]);

    const second = freshDriver();
    const found = await second.list();
    expect(found.map((entry) => [entry.instanceId, entry.complete]).sort()).toEqual(
      [
        [kept.instanceId, true],
        [broken.instanceId, false],
        ['nscrashed1', false],
      ].sort(),
    );
    const adopted = found.find((entry) => entry.complete);
    expect(adopted).toMatchObject({ url: kept.url, labels: { app: 'kept' } });
    await second.waitForReady(kept, HEALTH);
    expect(await removeEverything(second)).toBe(3);
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 120_000);

  it('leaves nothing behind after kill -9 at several points of a start', async () => {
    let discovered = 0;
    for (const delay of [700, 900, 1100, 1300, 1600]) {
      await crashWhileStarting(delay);
      discovered += await removeEverything(freshDriver());
      expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
    }
    // The crashes hit while instances existed, so the fresh driver had real work to do.
    expect(discovered).toBeGreaterThan(0);
  }, 180_000);
});
