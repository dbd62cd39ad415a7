import { RunnersResponseSchema, type DrainSessions } from '@sandbox/protocol';

/** Reads the sessions Node reports on our runners. */
export type SessionsSource = () => Promise<DrainSessions>;

/**
 * Sessions per app as the adapter last saw them at Node (heartbeat `session_ids` and O2R events), from
 * its `GET /v1/runners`. Node's discovery cannot tell: it lists only runners with free capacity.
 */
export function adapterSessionsSource(options: {
  adapterUrl: string;
  /** A token of the adapter's API (read role). Secret. */
  token: string;
  now: () => number;
  timeoutMs?: number;
}): SessionsSource {
  return async () => {
    const response = await fetch(new URL('/v1/runners', options.adapterUrl), {
      headers: { authorization: `Bearer ${options.token}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the adapter answered ${response.status} to GET /v1/runners`);
    }
    const { runners } = RunnersResponseSchema.parse(await response.json());
    const byApp: Record<string, number> = {};
    let total = 0;
    for (const runner of runners) {
      if (runner.sessions.length === 0) continue;
      byApp[runner.app] = (byApp[runner.app] ?? 0) + runner.sessions.length;
      total += runner.sessions.length;
    }
    return { total, byApp, observedAt: new Date(options.now()).toISOString() };
  };
}
