import type { Schedule } from '@sandbox/service-kit';
import { pino } from 'pino';
import type { InformerSource } from './resilient-informer';
import { createResilientInformer } from './resilient-informer';

/** A test object. */
export interface Obj {
  name: string;
}

/** A scripted informer: `start()` resolves or rejects when the test says so. */
export class FakeSource implements InformerSource<Obj> {
  objects: Obj[] = [];
  stopped = false;
  private handlers = new Map<string, ((arg?: unknown) => void)[]>();
  private settle?: { resolve: () => void; reject: (error: unknown) => void };
  on(verb: string, callback: (arg: Obj) => void): void {
    this.handlers.set(verb, [...(this.handlers.get(verb) ?? []), callback as (arg?: unknown) => void]);
  }
  start(): Promise<void> {
    return new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
  list(): Obj[] {
    return this.objects;
  }
  get(name: string): Obj | undefined {
    return this.objects.find((object) => object.name === name);
  }
  listed(objects: Obj[]): void {
    this.objects = objects;
    this.settle?.resolve();
  }
  failStart(error: unknown): void {
    this.settle?.reject(error);
  }
  fire(verb: string, arg?: unknown): void {
    for (const handler of this.handlers.get(verb) ?? []) handler(arg);
  }
}

/** Lets settled promises run their callbacks. */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

/** A wrapper over fake sources and the test's manual clock, recording the events it forwards. */
export function setupWith<Time extends { schedule: Schedule; now: () => number }>(
  time: Time,
  silenceMs = 300_000,
) {
  const sources: FakeSource[] = [];
  const informer = createResilientInformer<Obj>({
    create: () => {
      const source = new FakeSource();
      sources.push(source);
      return source;
    },
    keyOf: (o) => o.name,
    logger: pino({ level: 'silent' }),
    name: 'pods',
    schedule: time.schedule,
    now: time.now,
    silenceMs,
    random: () => 1,
  });
  const events: string[] = [];
  for (const verb of ['add', 'update', 'delete'] as const)
    informer.on(verb, (o) => events.push(`${verb}:${o.name}`));
  return { time, sources, informer, events };
}
