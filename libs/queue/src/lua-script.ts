import type { ChainableCommander, Redis } from 'ioredis';

type ScriptArg = string | number;
type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

/** A Lua script run as an ioredis custom command (EVALSHA, with ioredis loading it on NOSCRIPT). */
export interface LuaScript<Reply = unknown> {
  readonly name: string;
  /** Defines the command on a connection (once); pipelines made afterwards can queue it. */
  defineOn(redis: Redis): void;
  /** Runs the script on `redis`, defining it there first if needed. */
  run(redis: Redis, keys: readonly string[], args?: readonly ScriptArg[]): Promise<Reply>;
  /** Queues the script on a pipeline of a connection it was defined on ({@link LuaScript.defineOn}). */
  queue(pipeline: ChainableCommander, keys: readonly string[], args?: readonly ScriptArg[]): void;
}

/**
 * The project's one way to run Lua: ioredis `defineCommand`, wrapped so callers pass keys and
 * arguments apart (the key count is checked) and get the reply type the script promises.
 *
 * @param name - the command name ioredis defines on a connection; unique per connection
 * @param numberOfKeys - how many of the arguments are keys (KEYS[1..n]); the rest are ARGV
 */
export function luaScript<Reply = unknown>(
  name: string,
  numberOfKeys: number,
  lua: string,
): LuaScript<Reply> {
  const definedOn = new WeakSet<Redis>();
  const argumentsOf = (keys: readonly string[], args: readonly ScriptArg[]): ScriptArg[] => {
    if (keys.length !== numberOfKeys) {
      throw new RangeError(`script ${name} takes ${numberOfKeys} keys, got ${keys.length}`);
    }
    return [...keys, ...args];
  };
  const commandOf = (target: object): ScriptCommand => {
    const command = (target as Record<string, unknown>)[name];
    if (typeof command !== 'function') {
      throw new Error(`script ${name} is not defined on this connection (defineOn it first)`);
    }
    return command as ScriptCommand;
  };
  const defineOn = (redis: Redis): void => {
    if (definedOn.has(redis)) return;
    if (name in redis) throw new Error(`a command named ${name} already exists on this connection`);
    redis.defineCommand(name, { numberOfKeys, lua });
    definedOn.add(redis);
  };
  return {
    name,
    defineOn,
    async run(redis, keys, args = []) {
      defineOn(redis);
      return (await commandOf(redis).apply(redis, argumentsOf(keys, args))) as Reply;
    },
    queue(pipeline, keys, args = []) {
      void commandOf(pipeline).apply(pipeline, argumentsOf(keys, args));
    },
  };
}

/** Defines every script on a connection, so pipelines made from it can queue them. */
export function defineLuaScripts(redis: Redis, scripts: readonly LuaScript<unknown>[]): void {
  for (const script of scripts) script.defineOn(redis);
}
