import type { AppSpecInput } from '@sandbox/protocol';
import { exampleAppSpec } from '@sandbox/testing';
import type { PoolSizes } from './system-snapshot';

/** An app the soak declares from the example image, and whether its clients hold sessions on it. */
export interface SoakApp {
  name: string;
  spec: AppSpecInput;
  /** Ready instances it keeps (its warm pool). */
  pool: number;
  /** Clients reserve sessions on it (single-shot apps are called without one). */
  sessions: boolean;
}

// Priced so that every session pays with several tickets: winners keep flowing to the redeemer.
const price = { usd: '360', unit: 'hour' as const };

/** The example app three ways: reusable, single-session with a warm pool, single-shot. */
export function soakApps(image: string): SoakApp[] {
  return [
    {
      name: 'soak-reusable',
      spec: exampleAppSpec(
        image,
        { kind: 'reusable', capacity: 2, minReplicas: 1, maxReplicas: 2 },
        { price },
      ),
      pool: 1,
      sessions: true,
    },
    {
      name: 'soak-session',
      spec: exampleAppSpec(image, { kind: 'single-session', warmPool: 2, max: 5 }, { price }),
      pool: 2,
      sessions: true,
    },
    {
      name: 'soak-shot',
      spec: exampleAppSpec(
        image,
        { kind: 'reusable', capacity: 4, minReplicas: 1, maxReplicas: 1 },
        { mode: 'single-shot', price: { usd: '0.001', unit: 'fixed' } },
      ),
      pool: 1,
      sessions: false,
    },
  ];
}

export function poolSizes(apps: readonly SoakApp[]): PoolSizes {
  return Object.fromEntries(apps.map((app) => [app.name, app.pool]));
}
