import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxDriver } from '@sandbox/sandbox-local';
import type { InstanceStore } from '../store/instance-store';
import type { adapterSide } from './manager-harness.fixture';

type Adapter = Awaited<ReturnType<typeof adapterSide>>;

/** One thing the crash test does before it kills the manager. */
export type CrashAction = 'create' | 'take' | 'release';

/** What a round works with. */
export interface CrashContext {
  app: string;
  managerUrl: () => string;
  /** The admin token's `Authorization` header for the manager's API. */
  adminHeaders: Record<string, string>;
  store: InstanceStore;
  adapter: Adapter;
  driver: SandboxDriver;
  spec: (warmPool: number) => unknown;
  random: () => number;
}

/** A random action that has something to act on (take needs a ready instance, release a taken one). */
export async function chooseAction(ctx: CrashContext, first: boolean): Promise<CrashAction> {
  if (first) return 'create';
  const states = (await ctx.store.listLive(ctx.app)).map((entry) => entry.record.state);
  const possible: CrashAction[] = ['create'];
  if (states.includes('ready')) possible.push('take');
  if (states.includes('taken')) possible.push('release');
  return possible[Math.floor(ctx.random() * possible.length)] ?? 'create';
}

/** Starts the action; the caller kills the manager at a random moment while it runs. */
export async function act(ctx: CrashContext, action: CrashAction, creates: number): Promise<void> {
  const live = await ctx.store.listLive(ctx.app);
  if (action === 'create') {
    // The pool size cycles 1, 2, 3, so every create round changes the spec (starts or cancels).
    await fetch(`${ctx.managerUrl()}/v1/apps/${ctx.app}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...ctx.adminHeaders },
      body: JSON.stringify(ctx.spec(1 + (creates % 3))),
    });
    return;
  }
  if (action === 'take') {
    const ready = live.filter((entry) => entry.record.state === 'ready');
    const chosen = ready[Math.floor(ctx.random() * ready.length)];
    if (chosen) await ctx.adapter.reserve(chosen.record.id);
    return;
  }
  const taken = live.filter((entry) => entry.record.state === 'taken');
  const chosen = taken[Math.floor(ctx.random() * taken.length)];
  if (!chosen?.record.takenBy) return;
  await ctx.adapter.release(chosen.record.id, chosen.record.takenBy);
  // The adapter answers the withdrawal at once, so the crash can also hit the destroy.
  for (let poll = 0; poll < 40; poll += 1) {
    if ((await ctx.store.get(chosen.record.id))?.record.state === 'withdrawing') break;
    await sleep(25);
  }
  await ctx.adapter.withdrawn(chosen.record.id);
}

/**
 * Waits until the app is quiet (nothing starting or withdrawing, the host holds exactly the live
 * records' instances), answering withdrawals as the adapter would. Returns the live records.
 */
export async function settle(ctx: CrashContext, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  const answered = new Map<string, number>();
  for (;;) {
    const live = await ctx.store.listLive();
    for (const { record } of live) {
      if (
        record.state !== 'withdrawing' ||
        !record.withdrawQueued ||
        Date.now() - (answered.get(record.id) ?? 0) < 3_000
      )
        continue;
      answered.set(record.id, Date.now());
      await ctx.adapter.withdrawn(record.id);
    }
    const host = await ctx.driver.list();
    const liveIds = live.map((entry) => entry.record.id).sort();
    const hostIds = host.map((found) => found.instanceId).sort();
    const quiet = live.every((entry) => entry.record.state === 'ready' || entry.record.state === 'taken');
    if (quiet && liveIds.join() === hostIds.join() && host.every((found) => found.complete))
      return { live, host };
    if (Date.now() > deadline)
      throw new Error(
        `not settled: live ${JSON.stringify(live.map((e) => [e.record.id, e.record.state]))} host ${hostIds.join()}`,
      );
    await sleep(200);
  }
}
