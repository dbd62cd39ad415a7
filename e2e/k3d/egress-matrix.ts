// Where an app pod's connections may go: nowhere in the cluster or on the host, whatever its egress
// setting; the internet only for `egress: internet`. The k3d suite probes each row from inside a
// running app pod (a TCP connect with the image's own Node).
import type { Egress } from '@sandbox/protocol';

/** What the suite learns about the cluster before probing. */
export interface ClusterFacts {
  /** ClusterIP of `kubernetes.default` (443). */
  apiServerClusterIp: string;
  /** The node's InternalIP: the API server (6443) and the kubelet (10250) listen there. */
  nodeIp: string;
  /** Each Service of the system namespace: its ClusterIP and first port. */
  services: readonly { name: string; ip: string; port: number }[];
  /** Redis's pod address (besides its Service), as a pod that bypassed the Service would dial it. */
  redisPodIp: string;
  /** A pod of another app, on its app port. */
  otherAppPod: { ip: string; port: number };
  /** A public address that answers TCP (the internet). */
  publicTarget: { host: string; port: number };
}

/** One probe and what must happen. */
export interface EgressRow {
  target: string;
  host: string;
  port: number;
  /** `refused`: no connection may open (refused, reset, unreachable or timed out alike). */
  expect: 'refused' | 'connects';
}

/** Services the system namespace must have, so a missing one cannot shrink the matrix. */
export const EXPECTED_SERVICES = [
  'adapter',
  'dashboard',
  'drain-controller',
  'instance-manager',
  'livepeer-node',
  'redemption-handoff',
  'redis',
  'redeemer',
] as const;

/** The matrix for an app pod with `egress`. */
export function egressMatrix(facts: ClusterFacts, egress: Egress): EgressRow[] {
  const missing = EXPECTED_SERVICES.filter((name) => !facts.services.some((s) => s.name === name));
  if (missing.length > 0) throw new Error(`the system namespace has no Service ${missing.join(', ')}`);
  const refused = (target: string, host: string, port: number): EgressRow => ({
    target,
    host,
    port,
    expect: 'refused',
  });
  return [
    refused('API server ClusterIP', facts.apiServerClusterIp, 443),
    refused('API server on the node', facts.nodeIp, 6443),
    refused('kubelet', facts.nodeIp, 10250),
    refused('Redis pod', facts.redisPodIp, 6379),
    ...facts.services.map((service) => refused(`Service ${service.name}`, service.ip, service.port)),
    refused('cloud metadata', '169.254.169.254', 80),
    refused("another app's pod", facts.otherAppPod.ip, facts.otherAppPod.port),
    {
      target: 'the internet',
      host: facts.publicTarget.host,
      port: facts.publicTarget.port,
      expect: egress === 'internet' ? 'connects' : 'refused',
    },
  ];
}

/** How a probe ended, as the in-pod script reports it. */
export interface ProbeOutcome {
  result: 'connected' | 'error' | 'timeout';
  detail?: string;
}

/** Rows whose outcome is not the expected one, in words (empty when the matrix holds). */
export function matrixViolations(rows: readonly EgressRow[], outcomes: readonly ProbeOutcome[]): string[] {
  return rows.flatMap((row, index) => {
    const outcome = outcomes[index];
    const where = `${row.target} ${row.host}:${row.port}`;
    // A probe that never answered proves nothing either way.
    if (!outcome) return [`${where}: expected ${row.expect}, got no answer`];
    if ((row.expect === 'connects') === (outcome.result === 'connected')) return [];
    return [
      `${where}: expected ${row.expect}, got ${outcome.result}${outcome.detail ? ` ${outcome.detail}` : ''}`,
    ];
  });
}
