import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Options of {@link createMetrics}. */
export interface CreateMetricsOptions {
  /** Service name, a default label of every series. */
  svc: string;
  /** Collect the process and Node.js metrics. @defaultValue true */
  collectDefaults?: boolean;
}

/** Label names of {@link ServiceMetrics.httpRequestDuration}. */
export type HttpLabel = 'method' | 'route' | 'status_code';

/** The metrics of one process, in a registry of its own (never prom-client's global one). */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Seconds from request to response, by method, matched route pattern and status. */
  readonly httpRequestDuration: Histogram<HttpLabel>;
  /** The `Content-Type` of {@link ServiceMetrics.render}'s text. */
  readonly contentType: string;
  /** The exposition text for `/metrics`. */
  render(): Promise<string>;
}

/** Buckets (seconds) for API latency: 5 ms to 10 s. */
const HTTP_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

/**
 * Creates a service's metrics. Services add their own series with `registers: [metrics.registry]`.
 * A registry per instance keeps tests (several apps in one process) independent.
 */
export function createMetrics(options: CreateMetricsOptions): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ svc: options.svc });
  if (options.collectDefaults ?? true) collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram<HttpLabel>({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [...HTTP_DURATION_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    httpRequestDuration,
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}
