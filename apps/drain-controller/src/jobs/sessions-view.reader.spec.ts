import { describe, expect, it } from '@jest/globals';
import { sessionsViewKey, type SessionsView } from '@sandbox/protocol';
import { sessionsViewSource, type SessionsReading } from './sessions-view.reader';

const NOW = Date.parse('2026-06-01T03:00:00.000Z');
const KEY = sessionsViewKey('adapter-a');

const view = (overrides: Partial<SessionsView> = {}): SessionsView => ({
  total: 3,
  byApp: { echo: 2, chat: 1 },
  unreported: 0,
  observedAt: new Date(NOW - 800).toISOString(),
  ...overrides,
});

/** Redis's `TIME` reply at `ms`: seconds and microseconds, as strings. */
const redisTime = (ms: number): [string, string] => [
  String(Math.floor(ms / 1_000)),
  String((ms % 1_000) * 1_000),
];

/** A Redis holding `stored` (another key reads as missing) whose clock says `now`. */
function read(stored: Record<string, string>, now = NOW): Promise<SessionsReading> {
  const redis = { get: async (key: string) => stored[key] ?? null, time: async () => redisTime(now) };
  return sessionsViewSource({ redis, adapterStatePrefix: 'adapter-a', maxAgeMs: 5_000 })();
}

const reasonOf = async (reading: Promise<SessionsReading>) => {
  const result = await reading;
  if (result.known) throw new Error(`expected unknown, got ${JSON.stringify(result.sessions)}`);
  return result.reason;
};

describe('the sessions view, read fail-closed', () => {
  it('gives the counts of a fresh, complete view under the adapter prefix', async () => {
    await expect(read({ [KEY]: JSON.stringify(view()) })).resolves.toEqual({
      known: true,
      sessions: { total: 3, byApp: { echo: 2, chat: 1 }, observedAt: new Date(NOW - 800).toISOString() },
    });
    const none = view({ total: 0, byApp: {} });
    await expect(read({ [KEY]: JSON.stringify(none) })).resolves.toMatchObject({
      known: true,
      sessions: { total: 0, byApp: {} },
    });
  });

  it('is unknown when the view is missing or expired (the key is gone), or under another prefix', async () => {
    expect(await reasonOf(read({}))).toMatch(/missing or expired/);
    const other = { [sessionsViewKey('adapter')]: JSON.stringify(view({ total: 0, byApp: {} })) };
    expect(await reasonOf(read(other))).toMatch(/missing or expired/);
  });

  it('is unknown when the view is malformed', async () => {
    expect(await reasonOf(read({ [KEY]: '{"total":0' }))).toMatch(/not JSON/);
    const cases: unknown[] = [
      null,
      [],
      { ...view(), total: -1 },
      { ...view(), total: 0 },
      { ...view(), byApp: { echo: 0 }, total: 0 },
      { ...view(), observedAt: 'yesterday' },
      { ...view(), extra: true },
      { total: 0, byApp: {}, observedAt: view().observedAt },
    ];
    for (const value of cases)
      expect(await reasonOf(read({ [KEY]: JSON.stringify(value) }))).toMatch(/does not match its schema/);
  });

  it("is unknown when the view is stale, or stamped too far ahead, by Redis's clock", async () => {
    const old = view({ total: 0, byApp: {}, observedAt: new Date(NOW - 5_001).toISOString() });
    expect(await reasonOf(read({ [KEY]: JSON.stringify(old) }))).toMatch(/stale/);
    const ahead = view({ observedAt: new Date(NOW + 5_001).toISOString() });
    expect(await reasonOf(read({ [KEY]: JSON.stringify(ahead) }))).toMatch(/stale/);
    const edge = view({ observedAt: new Date(NOW - 5_000).toISOString() });
    await expect(read({ [KEY]: JSON.stringify(edge) })).resolves.toMatchObject({ known: true });
  });

  it('is unknown while Node has not reported the sessions of some runner', async () => {
    const partial = view({ total: 0, byApp: {}, unreported: 2 });
    expect(await reasonOf(read({ [KEY]: JSON.stringify(partial) }))).toMatch(/2 runners/);
  });

  it('is unknown when Redis gives no usable time', async () => {
    const redis = { get: async () => JSON.stringify(view()), time: async () => [] };
    const source = sessionsViewSource({ redis, adapterStatePrefix: 'adapter-a', maxAgeMs: 5_000 });
    expect(await reasonOf(source())).toMatch(/no usable time/);
  });

  it('passes a Redis error on (the step logs it and looks again)', async () => {
    const redis = {
      get: () => Promise.reject(new Error('connection is closed')),
      time: async () => redisTime(NOW),
    };
    const source = sessionsViewSource({ redis, adapterStatePrefix: 'a', maxAgeMs: 5_000 });
    await expect(source()).rejects.toThrow('connection is closed');
  });
});
