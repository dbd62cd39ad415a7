import { z } from 'zod';

/**
 * Error messages Node writes in its `{"error": ...}` bodies (livepeer/node `orchestrator/`), reproduced
 * exactly because clients and the simulator match on them. Validation messages of the heartbeat are
 * in {@link HeartbeatRuleMessage}.
 */
export const NodeErrorMessage = {
  InvalidHeartbeatJson: 'invalid heartbeat JSON',
  InvalidRunnerCredential: 'invalid runner credential',
  StaticRunnerCannotHeartbeat: 'static runner cannot heartbeat',
  RunnerCapacityReached: 'runner capacity reached',
  RunnerRegistrationExpired: 'runner registration expired',
  ShuttingDown: 'orchestrator shutting down',
  ServerBusy: 'server busy',
  RouteNotFound: 'route not found',
  RunnerNotFound: 'runner not found',
  RunnerUnavailable: 'runner unavailable',
  RunnerNotPersistent: 'runner is not persistent',
  RunnerNotSingleShot: 'runner is not single-shot',
  RunnerAtCapacity: 'runner at capacity',
  SessionCapacityReached: 'session capacity reached',
  SessionExists: 'session already exists or invalid',
  SessionNotFound: 'session not found',
  InvalidSessionToken: 'invalid session token',
  RunnerPriceUnavailable: 'runner price unavailable',
  RunnerDestinationUnavailable: 'runner destination unavailable',
  ProxyNotFound: 'proxy not found',
  InvalidProxyJson: 'invalid proxy JSON',
  InvalidChannelsRequest: 'invalid channels request',
  ChannelNameRequired: 'channel name required',
  TooManyChannels: 'too many channels',
  PayerAddressRequired: 'Livepeer-Payer-Address is required',
  PaymentChallengeUnavailable: 'payment challenge unavailable',
  InvalidSegmentCredentials: 'invalid segment credentials',
  RunnerPriceChanged: 'runner price changed; request a new payment challenge',
  InvalidPayment: 'invalid payment',
  PaymentChallengeNotFound: 'payment challenge not found',
  InsufficientPaymentBalance: 'insufficient payment balance',
  SessionEndedDuringPayment: 'session ended during payment',
  FixedPriceNoFollowUp: 'fixed-price sessions do not accept follow-up payments',
  PaymentUnavailable: 'payment unavailable',
  InvalidRefreshRequest: 'invalid refresh request',
} as const;

export type NodeErrorMessage = (typeof NodeErrorMessage)[keyof typeof NodeErrorMessage];

/** Validation messages of `POST /runners/heartbeat` (all answered with 400). */
export const HeartbeatRuleMessage = {
  RunnerId: "runner_id must contain only ASCII letters, digits, '-' or '_' and be at most 128 bytes",
  AppAndCapacity: 'app and capacity between 1 and 10000 are required',
  RunnerUrl: 'runner_url must be an absolute HTTP or HTTPS URL',
  Mode: 'mode must be persistent or single-shot',
  Unit720p: '720p pricing is unsupported',
  Unit: 'price_info.unit must be hour or fixed',
  NegativePrice: 'runner price must be nonnegative',
  /** Paid (on-chain) mode: every runner needs a price above zero; a missing price is zero. */
  PositivePriceOnChain: 'runner price must be positive in on-chain mode',
  Currency: 'runner price currency must be USD',
} as const;

/**
 * Every Node error response: `{"error":"<message>"}` with `Content-Type: application/json`.
 * Unlike our own services' {@link ErrorBodySchema}, it carries no code and no request id.
 */
export const NodeErrorBodySchema = z.strictObject({ error: z.string().min(1) });

export type NodeErrorBody = z.infer<typeof NodeErrorBodySchema>;

/** `{"ok":true}`, the body of unregister and of both session stop routes. */
export const NodeOkBodySchema = z.strictObject({ ok: z.literal(true) });

export type NodeOkBody = z.infer<typeof NodeOkBodySchema>;
