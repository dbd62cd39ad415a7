/** Options of {@link backoffDelay}. */
export interface BackoffOptions {
  /** Delay before the first retry. */
  initialMs: number;
  /** Largest delay. */
  maxMs: number;
  /** Growth per attempt. @defaultValue 2 */
  factor?: number;
  /** Source of randomness in [0, 1). @defaultValue `Math.random` */
  random?: () => number;
}

/**
 * Delay before retry number `attempt` (1 for the first retry): exponential growth capped at `maxMs`,
 * with "equal jitter" (a uniform pick in [d/2, d]) so that many clients failing together do not
 * retry together, while each still waits at least half the nominal delay.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const factor = options.factor ?? 2;
  const random = options.random ?? Math.random;
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const nominal = Math.min(options.maxMs, options.initialMs * factor ** exponent);
  return nominal / 2 + random() * (nominal / 2);
}
