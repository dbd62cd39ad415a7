import {
  IDEMPOTENCY_KEY_HEADER,
  REDEEMER_PATHS,
  RedeemerRejectionSchema,
  RedemptionOutcomesPageSchema,
  RedemptionReceiptSchema,
  type DeliveryErrorKind,
  type RedemptionOutcomesPage,
  type TicketRejectionReason,
  type WinningTicket,
} from '@sandbox/protocol';

/** What one delivery attempt achieved. */
export type DeliveryResult =
  | { readonly kind: 'accepted'; readonly duplicate: boolean }
  | { readonly kind: 'rejected'; readonly reason: TicketRejectionReason | 'refused'; readonly status: number }
  | { readonly kind: 'retry'; readonly error: DeliveryErrorKind; readonly retryAfterMs?: number };

/** Options of {@link createRedeemerClient}. */
export interface RedeemerClientOptions {
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <credential>`. Secret. */
  readonly credential: string;
  readonly timeoutMs: number;
  /** @defaultValue global fetch */
  readonly fetch?: typeof fetch;
}

/** The redemption service, as the contract in `@sandbox/protocol` (redeemer-api.schema.ts) defines it. */
export interface RedeemerClient {
  deliver(ticket: WinningTicket): Promise<DeliveryResult>;
  /** One page of outcomes after `after`; throws when the redeemer cannot answer. */
  outcomes(after: number, limit: number): Promise<RedemptionOutcomesPage>;
}

/** Statuses after which a delivery must never be repeated; every other failure is retried. */
const PERMANENT = new Set([400, 409, 422]);

export function createRedeemerClient(options: RedeemerClientOptions): RedeemerClient {
  const doFetch = options.fetch ?? fetch;
  const url = (path: string): string => new URL(path, options.baseUrl).toString();
  const authorization = `Bearer ${options.credential}`;

  return {
    async deliver(ticket) {
      let response: Response;
      try {
        response = await doFetch(url(REDEEMER_PATHS.tickets), {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Authorization: authorization,
            [IDEMPOTENCY_KEY_HEADER]: ticket.ticketHash,
          },
          body: JSON.stringify({ ticket }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        return { kind: 'retry', error: classifyFetchError(error) };
      }
      return readDelivery(response, ticket.ticketHash);
    },

    async outcomes(after, limit) {
      const target = new URL(url(REDEEMER_PATHS.outcomes));
      target.searchParams.set('after', String(after));
      target.searchParams.set('limit', String(limit));
      const response = await doFetch(target, {
        headers: { Authorization: authorization },
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const body = await readJson(response);
      if (response.status !== 200) throw new Error(`redeemer answered ${response.status} to an outcome poll`);
      const page = RedemptionOutcomesPageSchema.safeParse(body);
      if (!page.success) throw new Error('redeemer answered an outcome poll with a malformed page');
      return page.data;
    },
  };
}

async function readDelivery(response: Response, hash: string): Promise<DeliveryResult> {
  const body = await readJson(response).catch(() => undefined);
  const { status } = response;
  if (status === 200 || status === 201) {
    const receipt = RedemptionReceiptSchema.safeParse(body);
    // A 2xx without a receipt for this very ticket proves nothing: ask again (the redeemer dedupes).
    if (!receipt.success || receipt.data.ticketHash !== hash) return { kind: 'retry', error: 'bad_response' };
    return { kind: 'accepted', duplicate: receipt.data.status === 'duplicate' };
  }
  if (PERMANENT.has(status)) {
    const rejection = RedeemerRejectionSchema.safeParse(body);
    const reason = status === 422 && rejection.success ? rejection.data.reason : 'refused';
    return { kind: 'rejected', reason, status };
  }
  if (status === 429) {
    const retryAfterMs = retryAfter(response.headers.get('retry-after'));
    return { kind: 'retry', error: 'http_429', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { kind: 'retry', error: status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'bad_response' };
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function retryAfter(header: string | null): number | undefined {
  if (header === null || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1_000;
}

/** The category of a failed fetch: no answer within the timeout, refused, or another network error. */
export function classifyFetchError(error: unknown): DeliveryErrorKind {
  const name = (error as { name?: unknown })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  const codes = [error, (error as { cause?: unknown })?.cause].map(
    (item) => (item as { code?: unknown })?.code,
  );
  if (codes.includes('ECONNREFUSED')) return 'connection_refused';
  if (codes.some((code) => code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT'))
    return 'timeout';
  return 'network';
}
