import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { runCommand } from '../command-runner';
import type { SandboxDriver } from '../local-driver';
import { createLocalDriver } from '../local-driver';
import { instanceNames } from '../naming';
import { describeAsRoot } from '../test-support/describe-as-root.fixture';
import { exampleImage, exampleSpec, testLogger } from '../test-support/example-app.fixture';
import { leftovers, NO_LEFTOVERS } from '../test-support/leaks.fixture';
import { evalInInstance } from '../test-support/sandbox-probe.fixture';
import type { RunscBuild } from './runsc-build';
import { ensureRunscBuild } from './runsc-build';
import { canRunSandbox, chooseRuntime } from './runtime-choice';

const PREFIX = 'std';
let build: RunscBuild;
let driver: SandboxDriver;

describeAsRoot('the newer runsc built from the pinned gVisor module', () => {
  beforeAll(async () => {
    // Cached after the first build (about a minute on two cores, plus module downloads).
    build = await ensureRunscBuild();
  }, 30 * 60_000);

  afterAll(async () => {
    if (driver) for (const found of await driver.list()) await driver.stop(found.instanceId);
    expect(await leftovers(PREFIX)).toEqual(NO_LEFTOVERS);
  }, 60_000);

  it('reports the pinned version', async () => {
    expect((await runCommand(build.path, ['--version'])).stdout).toContain(build.version);
  });

  it('is preferred with systrap, with Debian runsc as the fallback that also works here', async () => {
    const systrap = { runscPath: build.path, runtimeFlags: ['platform=systrap'] };
    const debian = { runscPath: 'runsc', runtimeFlags: [] };
    expect(await chooseRuntime(runCommand, [systrap, debian])).toEqual(systrap);
    expect(await canRunSandbox(runCommand, debian)).toBe(true);
    expect(await canRunSandbox(runCommand, { runscPath: '/nonexistent/runsc', runtimeFlags: [] })).toBe(
      false,
    );
  });

  it('runs the example app through the local driver', async () => {
    driver = createLocalDriver({
      logger: testLogger,
      prefix: PREFIX,
      subnet: '10.214.5.0/24',
      runscPath: build.path,
      runtimeFlags: ['platform=systrap'],
    });
    const instance = await driver.start(exampleSpec(await exampleImage()));
    await driver.waitForReady(instance, { type: 'http', path: '/healthz', expectedStatus: 200 });
    expect((await fetch(`${instance.url}/echo`, { method: 'POST', body: 'systrap' })).status).toBe(200);
    const kernel = await evalInInstance(
      instanceNames(PREFIX, instance.instanceId).container,
      "process.stdout.write(require('fs').readFileSync('/proc/version', 'utf8'))",
    );
    expect(kernel).toContain('gvisor');
    await driver.stop(instance.instanceId);
  }, 120_000);
});
