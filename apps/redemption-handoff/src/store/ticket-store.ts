import { UNDELIVERED_TICKET_STATES, type TicketState, type WinningTicket } from '@sandbox/protocol';
import { defineLuaScripts, luaScript } from '@sandbox/queue';
import type { Redis } from 'ioredis';
import { ticketKeys, type TicketKeys } from './keys';
import {
  ANNOTATE_TICKET_LUA,
  BEGIN_DELIVERY_LUA,
  CREATE_TICKET_LUA,
  DELETE_TERMINAL_LUA,
  TRANSITION_TICKET_LUA,
} from './lua-scripts';
import { parseRecord, type TicketRecord, type TransitionFieldsOf } from './ticket-record';

/** A ticket to store, with its redemption window. */
export interface NewTicket {
  readonly ticket: WinningTicket;
  readonly receivedAt: number;
  readonly windowStart: number;
  readonly deadlineAt: number;
}

/** What a create did: stored now, or the state of the record that already existed. */
export type CreateResult = 'created' | TicketState;

/** What a transition did; `previous` is the state it found. */
export interface TransitionResult {
  readonly result: 'ok' | 'refused' | 'missing';
  readonly previous: TicketState | undefined;
}

/**
 * What starting a delivery attempt found: `ok` (now `delivering`, attempt counted) or `expired` (deadline
 * passed, record unchanged), each with the record as it was before; `refused` when no delivery is owed.
 */
export type BeginDeliveryResult =
  | { readonly result: 'ok' | 'expired'; readonly record: TicketRecord }
  | { readonly result: 'refused'; readonly state: TicketState }
  | { readonly result: 'missing' };

/** Extra record fields a transition sets (values already encoded). */
export type TransitionFields = TransitionFieldsOf;

const createScript = luaScript<string>('sandboxRhCreate', 6, CREATE_TICKET_LUA);
const transitionScript = luaScript<[string, string]>('sandboxRhTransition', 1, TRANSITION_TICKET_LUA);
const deleteTerminalScript = luaScript<number>('sandboxRhDeleteTerminal', 1, DELETE_TERMINAL_LUA);
const annotateScript = luaScript<number>('sandboxRhAnnotate', 1, ANNOTATE_TICKET_LUA);
const beginDeliveryScript = luaScript<string[]>('sandboxRhBeginDelivery', 1, BEGIN_DELIVERY_LUA);

/** The states a delivery or an outcome may still change. */
export const OPEN_STATES: readonly TicketState[] = [...UNDELIVERED_TICKET_STATES, 'accepted'];

/** Ticket records in Redis: every write is one Lua script (see lua-scripts.ts). */
export interface TicketStore {
  readonly keys: TicketKeys;
  readonly redis: Redis;
  /** Creates missing records (pipelined); returns, per ticket, 'created' or the existing state. */
  createMany(tickets: readonly NewTicket[]): Promise<CreateResult[]>;
  get(hash: string): Promise<TicketRecord | undefined>;
  /** Reads a record and, if one of `from` and before its deadline, moves it to `delivering` (one script). */
  beginDelivery(hash: string, from: readonly TicketState[], now: number): Promise<BeginDeliveryResult>;
  /** Moves a record to `target` if it is in one of `from`, setting `fields`. */
  transition(
    hash: string,
    target: TicketState,
    from: readonly TicketState[],
    now: number,
    fields?: TransitionFields,
  ): Promise<TransitionResult>;
  /** Several transitions in one pipeline (one round trip); results in order. */
  transitionMany(
    moves: readonly {
      hash: string;
      target: TicketState;
      from: readonly TicketState[];
      fields?: TransitionFields;
    }[],
    now: number,
  ): Promise<TransitionResult[]>;
  /** Sets fields without a state change (last error, late outcome). */
  annotate(hash: string, fields: TransitionFields): Promise<void>;
  readOutcomeCursor(): Promise<number>;
  writeOutcomeCursor(seq: number): Promise<void>;
  /** Deletes up to `limit` terminal records that ended before `before`; returns how many. */
  deleteTerminalBefore(before: number, limit: number): Promise<number>;
}

const SCRIPTS = [createScript, transitionScript, deleteTerminalScript, annotateScript, beginDeliveryScript];

/** A flat HGETALL-style reply as an object. */
function fieldsOf(pairs: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i] as string] = pairs[i + 1] as string;
  return fields;
}

/** The reply of BEGIN_DELIVERY_LUA, read. */
function toBeginResult([result, ...pairs]: string[]): BeginDeliveryResult {
  if (result === 'refused') return { result, state: pairs[0] as TicketState };
  if (result !== 'ok' && result !== 'expired') return { result: 'missing' };
  const record = parseRecord(fieldsOf(pairs));
  return record ? { result, record } : { result: 'missing' };
}

/** Creates the store over one connection (its commands, its durability). */
export function createTicketStore(redis: Redis, prefix: string): TicketStore {
  const keys = ticketKeys(prefix);
  // Defined up front: pipelines only get the commands of their connection at the time they are made.
  defineLuaScripts(redis, SCRIPTS);

  const createKeys = ({ ticket }: NewTicket): string[] => [
    keys.record(ticket.ticketHash),
    keys.state('received'),
    keys.all,
    keys.due,
    keys.payer(ticket.sender),
    keys.payers,
  ];
  const createArgs = ({ ticket, receivedAt, windowStart, deadlineAt }: NewTicket): (string | number)[] => [
    ticket.ticketHash,
    JSON.stringify(ticket),
    ticket.sender,
    ticket.faceValue,
    receivedAt,
    windowStart,
    deadlineAt,
  ];

  const transitionArgs = (
    hash: string,
    target: TicketState,
    from: readonly TicketState[],
    now: number,
    fields: TransitionFields = {},
  ): (string | number)[] => [
    prefix,
    hash,
    target,
    from.join(','),
    now,
    ...Object.entries(fields).flatMap(([field, value]) => [field, value ?? '']),
  ];
  const toResult = ([result, previous]: [string, string]): TransitionResult => ({
    result: result as TransitionResult['result'],
    previous: previous === '' ? undefined : (previous as TicketState),
  });

  return {
    keys,
    redis,
    async createMany(tickets) {
      if (tickets.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const ticket of tickets) createScript.queue(pipeline, createKeys(ticket), createArgs(ticket));
      const replies = (await pipeline.exec()) ?? [];
      return replies.map(([error, reply]) => {
        if (error) throw error;
        return reply as CreateResult;
      });
    },
    async get(hash) {
      return parseRecord(await redis.hgetall(keys.record(hash)));
    },
    async beginDelivery(hash, from, now) {
      const args = [prefix, hash, from.join(','), now];
      return toBeginResult(await beginDeliveryScript.run(redis, [keys.record(hash)], args));
    },
    async transition(hash, target, from, now, fields) {
      const args = transitionArgs(hash, target, from, now, fields);
      return toResult(await transitionScript.run(redis, [keys.record(hash)], args));
    },
    async transitionMany(moves, now) {
      if (moves.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const move of moves) {
        const args = transitionArgs(move.hash, move.target, move.from, now, move.fields);
        transitionScript.queue(pipeline, [keys.record(move.hash)], args);
      }
      return ((await pipeline.exec()) ?? []).map(([error, reply]) => {
        if (error) throw error;
        return toResult(reply as [string, string]);
      });
    },
    async annotate(hash, fields) {
      const pairs = Object.entries(fields).flatMap(([field, value]) => [field, value ?? '']);
      // Only on an existing record: HSET alone would create a shell record without a ticket.
      if (pairs.length > 0) await annotateScript.run(redis, [keys.record(hash)], pairs);
    },
    async readOutcomeCursor() {
      const value = await redis.get(keys.outcomeCursor);
      return value === null ? 0 : Number(value);
    },
    async writeOutcomeCursor(seq) {
      await redis.set(keys.outcomeCursor, String(seq));
    },
    async deleteTerminalBefore(before, limit) {
      const hashes = await redis.zrangebyscore(keys.terminal, '-inf', before, 'LIMIT', 0, limit);
      let deleted = 0;
      for (const hash of hashes) {
        deleted += await deleteTerminalScript.run(redis, [keys.record(hash)], [prefix, hash]);
      }
      return deleted;
    },
  };
}
