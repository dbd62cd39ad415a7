/** Options of {@link backoffDelay}. */
export interface BackoffOptions {
  /** Delay before the first retry. */
  initialMs: number;
  /** Largest delay. */
  maxMs: number;
  /** Growth per attempt. @defaultValue 2 */
  factor?: number;
  /**
   * `equal`: a uniform pick in [d/2, d], so that many clients failing together do not retry together
   * while each still waits at least half the nominal delay; `none`: exactly d. @defaultValue 'equal'
   */
  jitter?: 'equal' | 'none';
  /** Source of randomness in [0, 1). @defaultValue `Math.random` */
  random?: () => number;
}

/**
 * The project's one retry delay: before retry number `attempt` (1 for the first retry), the nominal
 * delay d = min(maxMs, initialMs · factor^(attempt-1)), jittered as {@link BackoffOptions.jitter} says.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const factor = options.factor ?? 2;
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const nominal = Math.min(options.maxMs, options.initialMs * factor ** exponent);
  if (options.jitter === 'none') return nominal;
  const random = options.random ?? Math.random;
  return nominal / 2 + random() * (nominal / 2);
}
