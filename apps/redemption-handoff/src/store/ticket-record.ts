import {
  DeliveryErrorKindSchema,
  TicketStateSchema,
  WinningTicketSchema,
  type DeliveryErrorKind,
  type TicketRecordView,
  type TicketState,
  type WinningTicket,
} from '@sandbox/protocol';

/** One stored ticket, secrets included: only the delivery worker and the record itself see `ticket`. */
export interface TicketRecord {
  readonly ticket: WinningTicket;
  readonly state: TicketState;
  readonly receivedAt: number;
  readonly windowStart: number;
  readonly deadlineAt: number;
  readonly attempts: number;
  readonly lastAttemptAt?: number;
  readonly lastError?: DeliveryErrorKind;
  readonly acceptedAt?: number;
  readonly terminalAt?: number;
  readonly reason?: string;
  readonly paidWei?: string;
  readonly txHash?: string;
  /** A terminal outcome the redeemer reported after the ticket had already ended otherwise. */
  readonly lateOutcome?: string;
}

/** Field names of a record HASH. Persistent. */
export const RecordField = {
  ticket: 't',
  state: 'st',
  sender: 'snd',
  faceValue: 'fv',
  receivedAt: 'rcv',
  windowStart: 'ws',
  deadlineAt: 'dl',
  attempts: 'att',
  lastAttemptAt: 'lat',
  lastError: 'err',
  acceptedAt: 'acc',
  terminalAt: 'term',
  reason: 'rsn',
  paidWei: 'paid',
  txHash: 'tx',
  lateOutcome: 'late',
} as const;

const optionalNumber = (text: string | undefined): number | undefined =>
  text === undefined || text === '' ? undefined : Number(text);

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** A record from HGETALL, or undefined for an empty reply (no such record). */
export function parseRecord(fields: Record<string, string>): TicketRecord | undefined {
  const raw = fields[RecordField.ticket];
  if (raw === undefined) return undefined;
  const lastError = DeliveryErrorKindSchema.safeParse(fields[RecordField.lastError]);
  return {
    ticket: WinningTicketSchema.parse(JSON.parse(raw)),
    state: TicketStateSchema.parse(fields[RecordField.state]),
    receivedAt: Number(fields[RecordField.receivedAt]),
    windowStart: Number(fields[RecordField.windowStart]),
    deadlineAt: Number(fields[RecordField.deadlineAt]),
    attempts: Number(fields[RecordField.attempts] ?? '0'),
    ...optional('lastAttemptAt', optionalNumber(fields[RecordField.lastAttemptAt])),
    ...optional('lastError', lastError.success ? lastError.data : undefined),
    ...optional('acceptedAt', optionalNumber(fields[RecordField.acceptedAt])),
    ...optional('terminalAt', optionalNumber(fields[RecordField.terminalAt])),
    ...optional('reason', fields[RecordField.reason]),
    ...optional('paidWei', fields[RecordField.paidWei]),
    ...optional('txHash', fields[RecordField.txHash]),
    ...optional('lateOutcome', fields[RecordField.lateOutcome]),
  };
}

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** The operator view of a record: the ticket without `sig` and `recipientRand`. */
export function toRecordView(record: TicketRecord): TicketRecordView {
  const { sig: _sig, recipientRand: _rand, ...summary } = record.ticket;
  return {
    ...summary,
    state: record.state,
    receivedAt: new Date(record.receivedAt).toISOString(),
    deadlineAt: new Date(Math.min(record.deadlineAt, 8_640_000_000_000_000)).toISOString(),
    attempts: record.attempts,
    ...optional('lastAttemptAt', iso(record.lastAttemptAt)),
    ...optional('lastError', record.lastError),
    ...optional('acceptedAt', iso(record.acceptedAt)),
    ...optional('terminalAt', iso(record.terminalAt)),
    ...optional('reason', record.reason),
    ...optional('paidWei', record.paidWei),
    ...optional('txHash', record.txHash),
  };
}

/** Record fields set alongside a transition (encoded values). */
export type TransitionFieldsOf = Partial<Record<(typeof RecordField)[keyof typeof RecordField], string>>;
