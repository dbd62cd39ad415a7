import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Router } from './http/router';
import type { DestinationPolicy } from './proxy/destination-policy';
import type { UpgradeSocket } from './proxy/upgrade-proxy';
import type { UpstreamSettings } from './proxy/upstream';
import type { AdvertisedPriceValue } from './registry/price';
import type { RegistryState } from './registry/registry-state';
import type { RunnerRegistry } from './registry/runner-registry';
import type { SessionRegistry } from './registry/session-registry';
import type { ChannelTable } from './trickle/channel-table';
import type { TrickleServer } from './trickle/trickle-server';

/** Sends a request of an activated session to its runner; resolves when the exchange is over. */
export type Forward = (runnerId: string, sessionId: string) => Promise<void>;

/**
 * The paid half of reservations and single-shot calls (present with `--paid`). Each method returns
 * `true` when it answered the request itself.
 */
export interface PaymentGate {
  /** Starts the per-second meter. */
  start(): void;
  stop(): void;
  /** Registers paid-mode routes of its own (the simulated signer). */
  addRoutes(router: Router): void;
  reserve(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): Promise<boolean>;
  singleShot(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
    forward: Forward,
  ): Promise<boolean>;
  /** The price a paid retry agreed to in its challenge, or the runner's current price. */
  reservationPrice(
    req: IncomingMessage,
    runnerId: string,
  ): { ok: true; value: AdvertisedPriceValue } | { ok: false; status: number; error: string } | undefined;
  sessionPayment(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    sessionId: string,
  ): Promise<void>;
  refresh(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Everything the simulator's routes share. */
export interface SimContext {
  readonly state: RegistryState;
  readonly runners: RunnerRegistry;
  readonly sessions: SessionRegistry;
  readonly channels: ChannelTable;
  readonly trickle: TrickleServer;
  readonly runnerPolicy: DestinationPolicy;
  readonly sessionProxyPolicy: DestinationPolicy;
  readonly upstream: UpstreamSettings;
  readonly logger: Logger;
  readonly payments: PaymentGate | undefined;
  /** Upgrade requests (WebSocket) and their raw client sockets. */
  readonly upgrades: WeakMap<IncomingMessage, UpgradeSocket>;
}
