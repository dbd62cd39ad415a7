import { describe, expect, it } from '@jest/globals';
import { Semaphore } from 'async-mutex';
import { createCoalescer, createKeyedSerial } from './keyed-serial';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function gate() {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('createKeyedSerial', () => {
  it('runs one function at a time per key, in order, and keys independently', async () => {
    const serial = createKeyedSerial();
    const order: string[] = [];
    const first = gate();
    const a1 = serial.run('a', async () => {
      await first.opened;
      order.push('a1');
    });
    const a2 = serial.run('a', async () => void order.push('a2'));
    const b1 = serial.run('b', async () => void order.push('b1'));
    await b1;
    expect(order).toEqual(['b1']);
    first.open();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
  });

  it('keeps going after a failure and returns each result', async () => {
    const serial = createKeyedSerial();
    await expect(serial.run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(serial.run('a', async () => 7)).resolves.toBe(7);
    await tick();
    expect(serial.size()).toBe(0);
  });
});

describe('createCoalescer', () => {
  it('runs once more after the current run, however often it was triggered meanwhile', async () => {
    const runs: string[] = [];
    const first = gate();
    const coalescer = createCoalescer(
      async (key) => {
        runs.push(key);
        if (runs.length === 1) await first.opened;
      },
      () => undefined,
    );
    const done = coalescer.trigger('app');
    void coalescer.trigger('app');
    void coalescer.trigger('app');
    first.open();
    await done;
    await coalescer.idle();
    expect(runs).toEqual(['app', 'app']);
  });

  it('reports failures and keeps working', async () => {
    const errors: string[] = [];
    const coalescer = createCoalescer(
      async () => Promise.reject(new Error('boom')),
      (key) => void errors.push(key),
    );
    await coalescer.trigger('x');
    expect(errors).toEqual(['x']);
  });
});

// The instance starter relies on async-mutex's semaphore waking its waiters in order.
describe('Semaphore', () => {
  it('admits at most the limit and wakes waiters in order', async () => {
    const semaphore = new Semaphore(1);
    const order: number[] = [];
    await semaphore.acquire();
    const second = semaphore.acquire().then(() => order.push(2));
    const third = semaphore.acquire().then(() => order.push(3));
    await tick();
    expect(order).toEqual([]);
    semaphore.release();
    await second;
    semaphore.release();
    await third;
    expect(order).toEqual([2, 3]);
  });
});
