/** HTTP headers of Node's runner and client contract (header names are case-insensitive on the wire). */
export const NodeHeader = {
  /** Raw bootstrap or heartbeat credential, no `Bearer ` prefix. Secret. */
  Authorization: 'Authorization',
  /** Injected into proxied requests: the runner id. */
  RunnerRoute: 'Livepeer-Runner-Route',
  /** Injected into proxied requests: the session id (also the transient single-shot session). */
  SessionId: 'Livepeer-Session-Id',
  /** Injected into proxied requests; authorizes runner callbacks for this session. Secret. */
  SessionToken: 'Livepeer-Session-Token',
  /** Injected into proxied requests: `<runner base>/runner/<rid>/session/<sid>`. */
  SessionControl: 'Livepeer-Session-Control',
  /** Client's Ethereum address, required to get a payment challenge. */
  PayerAddress: 'Livepeer-Payer-Address',
  /** Base64 payment from the signer. Secret. */
  Payment: 'Livepeer-Payment',
  /** Base64 segment credentials from the signer. */
  Segment: 'Livepeer-Segment',
  /** Trickle: sequence number of the segment being served. */
  TrickleSeq: 'Lp-Trickle-Seq',
  /** Trickle: the next sequence number to be written. */
  TrickleLatest: 'Lp-Trickle-Latest',
  /** Trickle: present (value `terminated`) once the channel is closed. */
  TrickleClosed: 'Lp-Trickle-Closed',
} as const;

/** Limits and defaults of Node's runner registry, as documented in node-protocol.md. */
export const NodeLimits = {
  /** Heartbeat and other control bodies. */
  maxControlBodyBytes: 1 << 20,
  /** Static plus dynamic runners. */
  maxRunners: 256,
  /** Sessions node-wide. */
  maxSessions: 10_000,
  minCapacity: 1,
  maxCapacity: 10_000,
  maxRouteIdBytes: 128,
  defaultHeartbeatInterval: '5s',
  defaultHeartbeatTtl: '30s',
  /** O2R keepalive period (hard-coded in Node). */
  o2rKeepAliveMs: 10_000,
  /** Trickle segments retained per channel. */
  trickleRetainedSegments: 5,
  /** Trickle status for an evicted or far-future sequence number. */
  trickleSeqGoneStatus: 470,
  /** Channels requested in one `POST .../channels`. */
  maxChannelsPerRequest: 25,
  maxProxiesPerSession: 25,
  /** Metering period of paid sessions. */
  paymentMeterMs: 1_000,
} as const;

/** Value of {@link NodeHeader.TrickleClosed} on a closed channel. */
export const TRICKLE_CLOSED_VALUE = 'terminated';

/** Trickle sequence number meaning "the next segment to be written". */
export const TRICKLE_SEQ_NEXT = -1;

/** Trickle sequence number meaning "the most recently written segment". */
export const TRICKLE_SEQ_LATEST = -2;
