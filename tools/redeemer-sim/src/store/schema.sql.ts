/** The simulator's tables. `tickets` is the redeemer's inbox, the rest its simulated chain and ledger. */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS tickets (
  hash TEXT PRIMARY KEY,
  ticket TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  deliveries INTEGER NOT NULL DEFAULT 1,
  submissions INTEGER NOT NULL DEFAULT 0,
  outcome TEXT
);
CREATE INDEX IF NOT EXISTS tickets_pending ON tickets (received_at) WHERE outcome IS NULL;
CREATE TABLE IF NOT EXISTS outcomes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  hash TEXT NOT NULL UNIQUE,
  outcome TEXT NOT NULL,
  reason TEXT,
  paid_wei TEXT,
  tx_hash TEXT,
  decided_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS senders (
  address TEXT PRIMARY KEY,
  deposit TEXT NOT NULL,
  reserve TEXT NOT NULL,
  withdraw_round TEXT
);
CREATE TABLE IF NOT EXISTS used_tickets (hash TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;
