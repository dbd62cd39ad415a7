import type { IsolationDrift } from '@sandbox/sandbox-local';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

/**
 * `instance_manager_isolation_drift_total{problem, action}`: instances whose isolation something else
 * on the host changed (a rule deleted or overtaken, a setting flipped), and whether the driver restored
 * the instance or withdrew it. Any increase means another tool is rewriting the host's firewall.
 */
export function isolationDriftCounter(registry: Registry): (drift: IsolationDrift) => void {
  const counter = new Counter<'problem' | 'action'>({
    name: 'instance_manager_isolation_drift_total',
    help: 'Instances found with drifted isolation, by problem and by what the driver did (restored, withdrawn).',
    labelNames: ['problem', 'action'],
    registers: [registry],
  });
  return (drift) => {
    for (const problem of new Set(drift.problems.map((entry) => entry.problem)))
      counter.inc({ problem, action: drift.action });
  };
}
