import { backoffDelay, realSchedule, type Schedule } from '@sandbox/service-kit';
import type { Logger } from 'pino';
import { apiStatus } from './kube-errors';

/** The part of client-node's `Informer & ObjectCache` (a `ListWatch`) the wrapper uses. */
export interface InformerSource<T> {
  on(verb: 'add' | 'update' | 'delete', callback: (object: T) => void): void;
  on(verb: 'error' | 'connect', callback: (error?: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  list(): ReadonlyArray<T>;
  /** client-node's keyed `ObjectCache` lookup. */
  get(name: string, namespace?: string): T | undefined;
}

/** Options of {@link createResilientInformer}. */
export interface ResilientInformerOptions<T> {
  /** Makes a fresh informer; each restart uses a new one, so it lists again. */
  create: () => InformerSource<T>;
  /** Identity of an object (`namespace/name`), to report objects that vanished while restarting. */
  keyOf: (object: T) => string;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** For logs. */
  name: string;
  /** @defaultValue setTimeout */
  schedule?: Schedule;
  /** @defaultValue Date.now */
  now?: () => number;
  /** No object event for this long forces a relist (watches have gone silent without an error). @defaultValue 300000 */
  silenceMs?: number;
  /** First restart delay after an error; doubles up to `maxBackoffMs`. @defaultValue 1000 */
  initialBackoffMs?: number;
  /** @defaultValue 30000 */
  maxBackoffMs?: number;
  /** Jitter source in [0, 1): each delay is scaled by 0.5-1.0. @defaultValue Math.random */
  random?: () => number;
}

/** An informer that keeps itself running. */
export interface ResilientInformer<T> {
  on(verb: 'add' | 'update' | 'delete', callback: (object: T) => void): void;
  /** Starts listing and watching; errors restart it, never stop it. */
  start(): void;
  stop(): Promise<void>;
  /** True once the first list has completed (readiness waits for this). */
  synced(): boolean;
  /**
   * The cache of the last informer that completed its list (kept while a replacement lists), with
   * the objects the replacement already holds in their newer version, so a handler of its events
   * reads what the event reported. Objects the replacement lacks stay until the swap reports them
   * deleted.
   */
  list(): ReadonlyArray<T>;
  /** One object by name (and namespace, for namespaced kinds), as {@link list} has it. */
  get(name: string, namespace?: string): T | undefined;
  /** Restarts so far (errors and silence). */
  restarts(): number;
}

type Verb = 'add' | 'update' | 'delete';

function withDefaults<T>(options: ResilientInformerOptions<T>) {
  return {
    schedule: options.schedule ?? realSchedule,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    silenceMs: options.silenceMs ?? 300_000,
    initialBackoff: options.initialBackoffMs ?? 1_000,
    maxBackoff: options.maxBackoffMs ?? 30_000,
  };
}

/** Objects of the previous cache that the replacement's list no longer has. */
function vanished<T>(
  previous: InformerSource<T>,
  next: InformerSource<T>,
  keyOf: (object: T) => string,
): T[] {
  const present = new Set(next.list().map(keyOf));
  return previous.list().filter((object) => !present.has(keyOf(object)));
}

/**
 * What the informer serves: the listed cache, with the newer objects of a replacement that is still
 * listing laid over it (so a handler of the replacement's events reads what the event reported).
 */
function servedObjects<T>(
  active: InformerSource<T> | undefined,
  current: InformerSource<T> | undefined,
  keyOf: (object: T) => string,
): readonly T[] {
  const served = active?.list() ?? [];
  if (!current || current === active) return served;
  const merged = new Map(served.map((object) => [keyOf(object), object]));
  for (const object of current.list()) merged.set(keyOf(object), object);
  return [...merged.values()];
}

/** The handlers registered per verb, and their dispatch. */
function eventCallbacks<T>() {
  const callbacks: Record<Verb, ((object: T) => void)[]> = { add: [], update: [], delete: [] };
  return {
    on: (verb: Verb, callback: (object: T) => void) => void callbacks[verb].push(callback),
    emit: (verb: Verb, object: T) => {
      for (const callback of callbacks[verb]) callback(object);
    },
  };
}

/**
 * Wraps client-node's informer, which stops for good on any error other than 410 Gone: restarts it
 * with capped, jittered exponential backoff, relists after `silenceMs` without object events, and
 * keeps serving the previous cache until a replacement has listed (so a restart never looks like every
 * object vanished). Objects missing from the new list are reported as deleted.
 */
export function createResilientInformer<T>(options: ResilientInformerOptions<T>): ResilientInformer<T> {
  const { schedule, now, random, silenceMs, initialBackoff, maxBackoff } = withDefaults(options);
  const logger = options.logger;
  const { on, emit } = eventCallbacks<T>();
  let generation = 0;
  let current: InformerSource<T> | undefined;
  let active: InformerSource<T> | undefined;
  let hasSynced = false;
  let stopped = true;
  let failures = 0;
  let lastActivity = now();
  let restartCount = 0;
  let pending: { cancel(): void } | undefined;
  let watchdog: { cancel(): void } | undefined;

  const swap = (source: InformerSource<T>) => {
    const previous = active;
    active = source;
    if (!previous || previous === source) return;
    for (const object of vanished(previous, source, options.keyOf)) emit('delete', object);
  };

  const armWatchdog = () => {
    watchdog?.cancel();
    const wait = Math.max(0, lastActivity + silenceMs - now());
    watchdog = schedule(() => {
      if (stopped) return;
      if (now() - lastActivity < silenceMs) return armWatchdog();
      logger.info({ informer: options.name, silenceMs }, 'informer silent; relisting');
      restart(0);
    }, wait);
  };

  const restart = (delayMs: number) => {
    generation += 1;
    restartCount += 1;
    const old = current;
    current = undefined;
    void old?.stop().catch(() => undefined);
    pending?.cancel();
    pending = schedule(() => {
      pending = undefined;
      if (!stopped) launch();
    }, delayMs);
  };

  const fail = (gen: number, error: unknown) => {
    if (gen !== generation || stopped) return;
    // 410 Gone: our resource version is too old to watch from; a fresh list is the fix, not a wait.
    if (apiStatus(error) === 410) {
      logger.info({ informer: options.name }, 'informer resource version expired; relisting');
      return restart(0);
    }
    failures += 1;
    const delayMs = Math.round(
      backoffDelay(failures, { initialMs: initialBackoff, maxMs: maxBackoff, random }),
    );
    logger.warn({ informer: options.name, err: error, delayMs }, 'informer failed; restarting');
    restart(delayMs);
  };

  const launch = () => {
    const gen = ++generation;
    const source = options.create();
    current = source;
    for (const verb of ['add', 'update', 'delete'] as const) {
      source.on(verb, (object: T) => {
        if (gen !== generation) return;
        lastActivity = now();
        emit(verb, object);
      });
    }
    source.on('error', (error?: unknown) => fail(gen, error));
    source.start().then(
      () => {
        if (gen !== generation || stopped) return;
        swap(source);
        hasSynced = true;
        failures = 0;
        lastActivity = now();
        armWatchdog();
      },
      (error: unknown) => fail(gen, error),
    );
  };

  return {
    on,
    start() {
      if (!stopped) return;
      stopped = false;
      launch();
    },
    async stop() {
      stopped = true;
      generation += 1;
      pending?.cancel();
      watchdog?.cancel();
      const sources = new Set([current, active].filter((source) => source !== undefined));
      await Promise.all([...sources].map((source) => source.stop().catch(() => undefined)));
    },
    synced: () => hasSynced,
    list: () => servedObjects(active, current, options.keyOf),
    get: (name, namespace) => current?.get(name, namespace) ?? active?.get(name, namespace),
    restarts: () => restartCount,
  };
}
