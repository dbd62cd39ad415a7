// The stack's handling of real app instances on stop (root: network namespaces, iptables, podman).
import { afterAll, expect, it } from '@jest/globals';
import { createLocalDriver } from '@sandbox/sandbox-local';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { asRoot, describeRequiring } from '@sandbox/testing';
import { pino } from 'pino';
import { localInstances, settleInstances } from './stack-instances';

const PREFIX = 'sti';
const SUBNET = '10.219.248.0/24';
const logger = pino({ level: 'error' });
const options = { prefix: PREFIX, subnet: SUBNET, logger };
const describeAsRoot = describeRequiring(asRoot);

describeAsRoot('the stack and real app instances', () => {
  const instances = localInstances(options);
  afterAll(async () => {
    for (const id of await instances.list()) await instances.destroy(id);
  }, 120_000);

  it('keeps a running instance when asked, and removes it otherwise', async () => {
    const driver = createLocalDriver(options);
    const image = await ensureExampleAppImage();
    const started = await driver.start({ image, port: 8080, resources: { cpus: 1, memoryMb: 256 } });
    const said: string[] = [];
    await settleInstances(instances, true, (message) => said.push(message));
    expect(await instances.list()).toEqual([started.instanceId]);
    expect(said).toEqual([expect.stringContaining(`kept 1 app instance running (prefix ${PREFIX})`)]);
    await settleInstances(instances, false, (message) => said.push(message));
    expect(await instances.list()).toEqual([]);
    expect(said[1]).toContain('stopped 1 of 1 app instance;');
  }, 180_000);
});
