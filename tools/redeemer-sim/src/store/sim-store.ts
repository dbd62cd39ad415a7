import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { RedemptionOutcome, RedemptionOutcomeKind, WinningTicket } from '@sandbox/protocol';
import { SCHEMA_SQL } from './schema.sql';
import { prepareFile, toSimTicket, type Row } from './sim-rows';

/** One ticket in the simulator's inbox, with its counters. */
export interface SimTicket {
  readonly ticket: WinningTicket;
  readonly receivedAt: number;
  /** Deliveries received for this hash (1 + duplicates). */
  readonly deliveries: number;
  /** Redemption transactions submitted for this hash: must never exceed 1. */
  readonly submissions: number;
  readonly outcome: RedemptionOutcomeKind | undefined;
}

/** What storing a delivery did. */
export type SubmitResult = 'accepted' | 'duplicate' | 'conflict';

/** A sender's funds on the simulated TicketBroker. */
export interface SenderFunds {
  readonly deposit: bigint;
  readonly reserve: bigint;
  readonly withdrawRound: bigint | undefined;
}

/** A decided outcome to record (and, for a redemption, the submission and payment). */
export interface Decision {
  readonly hash: string;
  readonly outcome: RedemptionOutcomeKind;
  readonly reason?: string;
  readonly paidWei?: string;
  readonly txHash?: string;
  /** A transaction was submitted: count it and mark the ticket used on chain. */
  readonly submitted: boolean;
  /** Sender funds after the payment. */
  readonly funds?: { sender: string; deposit: bigint; reserve: bigint };
}

/**
 * The simulator's durable store: SQLite in WAL mode with `synchronous=FULL` (each commit is fsynced), in
 * an owner-only file. A delivery is stored (or counted as a duplicate) in one transaction before it is
 * acknowledged; a redemption's submission, used mark, payment and outcome commit together, so a crash
 * can never leave a ticket submitted without its outcome or submitted twice.
 */
export class SimStore {
  readonly #db: DatabaseSync;
  /** Compiled once per SQL text: preparing is a good part of each statement's cost otherwise. */
  readonly #statements = new Map<string, StatementSync>();

  constructor(path: string) {
    if (path !== ':memory:') prepareFile(path);
    this.#db = new DatabaseSync(path, { timeout: 5_000 });
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
    this.#db.exec(SCHEMA_SQL);
  }

  close(): void {
    this.#db.close();
  }

  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Stores a delivery: `accepted` when new, `duplicate` when the same ticket is known, else `conflict`. */
  submit(ticket: WinningTicket, now: number): SubmitResult {
    return this.submitMany([{ ticket, now }])[0] as SubmitResult;
  }

  /**
   * Stores several deliveries in one transaction (one fsync), each judged as {@link SimStore.submit}
   * would in order, so a ticket twice in one batch is `accepted` then `duplicate`.
   */
  submitMany(deliveries: readonly { ticket: WinningTicket; now: number }[]): SubmitResult[] {
    return this.#transaction(() => deliveries.map(({ ticket, now }) => this.#submitOne(ticket, now)));
  }

  #submitOne(ticket: WinningTicket, now: number): SubmitResult {
    const text = JSON.stringify(ticket);
    const existing = this.#sql('SELECT ticket FROM tickets WHERE hash = ?').get(ticket.ticketHash) as
      Row | undefined;
    if (existing) {
      if (existing.ticket !== text) return 'conflict';
      this.#sql('UPDATE tickets SET deliveries = deliveries + 1 WHERE hash = ?').run(ticket.ticketHash);
      return 'duplicate';
    }
    this.#sql('INSERT INTO tickets (hash, ticket, received_at) VALUES (?, ?, ?)').run(
      ticket.ticketHash,
      text,
      now,
    );
    return 'accepted';
  }

  ticket(hash: string): SimTicket | undefined {
    const row = this.#sql('SELECT * FROM tickets WHERE hash = ?').get(hash) as Row | undefined;
    return row ? toSimTicket(row) : undefined;
  }

  /** Every ticket, oldest first (for the independent-ledger comparison of tests). */
  allTickets(): SimTicket[] {
    return (this.#sql('SELECT * FROM tickets ORDER BY received_at, hash').all() as Row[]).map(toSimTicket);
  }

  /** Tickets without an outcome, oldest first. */
  pending(limit: number): SimTicket[] {
    const rows = this.#sql('SELECT * FROM tickets WHERE outcome IS NULL ORDER BY received_at LIMIT ?').all(
      limit,
    ) as Row[];
    return rows.map(toSimTicket);
  }

  isUsed(hash: string): boolean {
    return this.#sql('SELECT 1 FROM used_tickets WHERE hash = ?').get(hash) !== undefined;
  }

  markUsed(hash: string): void {
    this.#sql('INSERT OR IGNORE INTO used_tickets (hash) VALUES (?)').run(hash);
  }

  funds(sender: string, fallback: SenderFunds): SenderFunds {
    const row = this.#sql('SELECT * FROM senders WHERE address = ?').get(sender) as Row | undefined;
    if (!row) return fallback;
    return {
      deposit: BigInt(row.deposit as string),
      reserve: BigInt(row.reserve as string),
      withdrawRound: row.withdraw_round === null ? undefined : BigInt(row.withdraw_round as string),
    };
  }

  setFunds(sender: string, funds: SenderFunds): void {
    this.#sql(
      'INSERT OR REPLACE INTO senders (address, deposit, reserve, withdraw_round) VALUES (?, ?, ?, ?)',
    ).run(
      sender,
      funds.deposit.toString(),
      funds.reserve.toString(),
      funds.withdrawRound?.toString() ?? null,
    );
  }

  /** Records a decision atomically; false (and no change) when the ticket already has an outcome. */
  decide(decision: Decision, now: number): boolean {
    return this.#transaction(() => this.decideWithin(decision, now));
  }

  /**
   * Runs `work` in one transaction (one fsync for everything it records). Inside it, reads see the
   * writes made so far, so decisions taken one after another use current funds.
   */
  inTransaction<T>(work: () => T): T {
    return this.#transaction(work);
  }

  /** {@link SimStore.decide} for use inside {@link SimStore.inTransaction}. */
  decideWithin(decision: Decision, now: number): boolean {
    const row = this.#sql('SELECT outcome FROM tickets WHERE hash = ?').get(decision.hash) as Row | undefined;
    if (!row || row.outcome !== null) return false;
    if (decision.submitted) {
      this.#sql('UPDATE tickets SET submissions = submissions + 1 WHERE hash = ?').run(decision.hash);
      this.markUsed(decision.hash);
    }
    if (decision.funds) {
      const current = this.funds(decision.funds.sender, {
        deposit: 0n,
        reserve: 0n,
        withdrawRound: undefined,
      });
      this.setFunds(decision.funds.sender, {
        ...current,
        deposit: decision.funds.deposit,
        reserve: decision.funds.reserve,
      });
    }
    this.#sql('UPDATE tickets SET outcome = ? WHERE hash = ?').run(decision.outcome, decision.hash);
    this.#sql(
      'INSERT INTO outcomes (hash, outcome, reason, paid_wei, tx_hash, decided_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(
      decision.hash,
      decision.outcome,
      decision.reason ?? null,
      decision.paidWei ?? null,
      decision.txHash ?? null,
      now,
    );
    return true;
  }

  outcomesAfter(after: number, limit: number): RedemptionOutcome[] {
    const rows = this.#sql('SELECT * FROM outcomes WHERE seq > ? ORDER BY seq LIMIT ?').all(
      after,
      limit,
    ) as Row[];
    return rows.map((row) => ({
      seq: Number(row.seq),
      ticketHash: row.hash as string,
      outcome: row.outcome as RedemptionOutcomeKind,
      ...(row.reason === null ? {} : { reason: row.reason as string }),
      ...(row.paid_wei === null ? {} : { paidWei: row.paid_wei as string }),
      ...(row.tx_hash === null ? {} : { txHash: row.tx_hash as string }),
      decidedAt: new Date(Number(row.decided_at)).toISOString(),
    }));
  }

  meta(key: string): string | undefined {
    const row = this.#sql('SELECT value FROM meta WHERE key = ?').get(key) as Row | undefined;
    return row ? (row.value as string) : undefined;
  }

  setMeta(key: string, value: string): void {
    this.#sql('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }
}
