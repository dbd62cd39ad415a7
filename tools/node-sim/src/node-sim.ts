import type { AddressInfo } from 'node:net';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Server } from 'node:http';
import { NodeLimits } from '@sandbox/protocol';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { systemClock, type Clock } from '@sandbox/service-kit';
import type { Rational } from './go/rational';
import { createMetricsServer } from './http/metrics-server';
import { attachPublicRoutes, createHttpServer } from './http/public-server';
import { DestinationPolicy } from './proxy/destination-policy';
import { idGenerator, type IdKind } from './registry/id-scheme';
import { RegistryState } from './registry/registry-state';
import { RunnerRegistry } from './registry/runner-registry';
import { SessionRegistry } from './registry/session-registry';
import type { PaymentGate, SimContext } from './sim-context';
import { ChannelTable } from './trickle/channel-table';
import { TrickleServer } from './trickle/trickle-server';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The simulator's settings (the CLI maps Node's flags onto these). */
export interface NodeSimOptions {
  readonly listen: ListenAddress;
  readonly metricsListen: ListenAddress;
  /** Public base URL; defaults to `http://<listen>` (with the bound port). */
  readonly serviceUrl?: string;
  /** Runner-facing base URL; defaults to the service URL. */
  readonly runnerServiceUrl?: string;
  /** Exact bytes of the bootstrap secret. */
  readonly bootstrapSecret: Buffer;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTtlMs: number;
  readonly runnerGrants: readonly string[];
  readonly sessionProxyGrants: readonly string[];
  /** Paid mode: the wei/USD rate (and, through `payments`, the payment engine). */
  readonly weiPerUsd?: Rational;
  /** Grace period for in-flight requests on stop (Node: 15 s). */
  readonly shutdownGraceMs?: number;
}

export interface NodeSimDeps {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How ids, credentials and tokens are drawn. @defaultValue `idGenerator('hex')` */
  readonly newId?: (kind: IdKind) => string;
  /** Builds the paid-mode gate once the registry exists (see payments/). */
  readonly payments?: (ctx: Omit<SimContext, 'payments'>) => PaymentGate;
}

export interface RunningNodeSim {
  /** Where the public listener is bound (`http://host:port`). */
  readonly publicUrl: string;
  readonly metricsUrl: string;
  readonly serviceUrl: string;
  readonly runnerServiceUrl: string;
  readonly context: SimContext;
  /** Node's shutdown: every session released and channel closed, then the listeners drain. */
  stop(): Promise<void>;
}

function listen(server: Server, address: ListenAddress): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      const bound = server.address() as AddressInfo;
      const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      resolve(`http://${host}:${bound.port}`);
    });
  });
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Starts the simulator: public and metrics listeners, the expiry sweep and O2R keepalives. */
export async function startNodeSim(options: NodeSimOptions, deps: NodeSimDeps = {}): Promise<RunningNodeSim> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? pino({ name: 'node-sim', enabled: false });
  const publicServer = createHttpServer();
  const publicUrl = await listen(publicServer, options.listen);
  const serviceUrl = (options.serviceUrl ?? publicUrl).replace(/\/+$/u, '');
  const runnerServiceUrl = (options.runnerServiceUrl ?? serviceUrl).replace(/\/+$/u, '');
  const state = new RegistryState(
    {
      serviceUrl,
      runnerServiceUrl,
      bootstrapSecret: options.bootstrapSecret,
      intervalMs: options.heartbeatIntervalMs,
      ttlMs: options.heartbeatTtlMs,
      weiPerUsd: options.weiPerUsd,
    },
    clock,
    deps.newId ?? idGenerator('hex'),
  );
  const trickle = new TrickleServer();
  const channels = new ChannelTable(trickle, () => clock.now());
  state.onEvent = (runnerId, event, sessionId) => channels.onRegistryEvent(runnerId, event, sessionId);
  const base = {
    state,
    runners: new RunnerRegistry(state),
    sessions: new SessionRegistry(state),
    channels,
    trickle,
    runnerPolicy: new DestinationPolicy('runner', options.runnerGrants),
    sessionProxyPolicy: new DestinationPolicy('session-proxy', options.sessionProxyGrants),
    upstream: {
      httpAgent: new Agent({ keepAlive: true, maxFreeSockets: 16 }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxFreeSockets: 16 }),
      dialTimeoutMs: 10_000,
      headerTimeoutMs: 60_000,
    },
    logger,
    upgrades: new WeakMap(),
  };
  const payments = deps.payments?.(base);
  const context: SimContext = { ...base, payments };
  attachPublicRoutes(publicServer, context);
  const metricsServer = createMetricsServer(() => context.runners.counts());
  const metricsUrl = await listen(metricsServer, options.metricsListen).catch(async (error: unknown) => {
    await closeServer(publicServer, 0);
    throw error;
  });
  const timers = [
    clock.every(options.heartbeatIntervalMs, () => context.runners.expire()),
    clock.every(NodeLimits.o2rKeepAliveMs, () => channels.keepAlive()),
  ];
  payments?.start();
  logger.info(
    { publicUrl, metricsUrl, serviceUrl, runnerServiceUrl, paid: payments !== undefined },
    'node-sim listening',
  );
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      for (const timer of timers) timer.cancel();
      payments?.stop();
      context.runners.close();
      trickle.closeAll();
      const grace = options.shutdownGraceMs ?? 15_000;
      await Promise.all([closeServer(publicServer, grace), closeServer(metricsServer, grace)]);
      context.upstream.httpAgent.destroy();
      context.upstream.httpsAgent.destroy();
      logger.info('node-sim stopped');
    })();
    return stopped;
  };
  return { publicUrl, metricsUrl, serviceUrl, runnerServiceUrl, context, stop };
}
