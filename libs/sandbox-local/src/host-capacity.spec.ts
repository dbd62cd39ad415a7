import { describe, expect, it } from '@jest/globals';
import { createCapacityGate, InstanceCapacityError, requestedBy } from './host-capacity';
import type { ContainerSummary } from './podman';

const container = (state: string, cpus: string, memoryMb: string): ContainerSummary => ({
  name: 'c',
  state,
  labels: { 'sandbox.cpus': cpus, 'sandbox.memory-mb': memoryMb },
});

describe('host capacity', () => {
  it('counts what live containers request and nothing for ended ones', () => {
    expect(
      requestedBy([
        container('running', '0.5', '256'),
        container('created', '1', '128'),
        container('exited', '4', '4096'),
      ]),
    ).toEqual({ cpus: 1.5, memoryMb: 384 });
  });

  it('admits requests that fit, counting starts in flight, and refuses the rest with what is left', async () => {
    const gate = createCapacityGate({ cpus: 2, memoryMb: 1024 }, async () => [
      container('running', '1', '512'),
    ]);
    const release = await gate.admit('a', { cpus: 0.5, memoryMb: 256 });
    const refused = gate.admit('b', { cpus: 0.75, memoryMb: 128 });
    await expect(refused).rejects.toBeInstanceOf(InstanceCapacityError);
    await expect(refused).rejects.toThrow('requests 0.75 CPUs and 128 MiB, 0.5 CPUs and 256 MiB are left');
    await expect(gate.admit('c', { cpus: 0.25, memoryMb: 512 })).rejects.toThrow('256 MiB are left');
    release();
    await expect(gate.admit('d', { cpus: 1, memoryMb: 512 })).resolves.toBeInstanceOf(Function);
  });

  it('lists the containers again only when a request does not fit the last listing and the starts since', async () => {
    let listings = 0;
    let containers = [container('running', '1', '256')];
    const gate = createCapacityGate({ cpus: 2, memoryMb: 1024 }, async () => {
      listings += 1;
      return containers;
    });
    (await gate.admit('a', { cpus: 0.25, memoryMb: 128 }))();
    (await gate.admit('b', { cpus: 0.25, memoryMb: 128 }))();
    expect(listings).toBe(1);
    // a and b still count (their containers may run), so this one needs a fresh count: the first
    // container has ended meanwhile, and the new listing shows a and b running.
    containers = [
      container('exited', '1', '256'),
      container('running', '0.25', '128'),
      container('running', '0.25', '128'),
    ];
    await expect(gate.admit('c', { cpus: 1.5, memoryMb: 128 })).resolves.toBeInstanceOf(Function);
    expect(listings).toBe(2);
    await expect(gate.admit('d', { cpus: 0.25, memoryMb: 128 })).rejects.toThrow(
      '0 CPUs and 640 MiB are left',
    );
    expect(listings).toBe(3);
  });
});
