import { describe, expect, it } from '@jest/globals';
import { egressMatrix, EXPECTED_SERVICES, matrixViolations, type ClusterFacts } from './egress-matrix';

const FACTS: ClusterFacts = {
  apiServerClusterIp: '10.43.0.1',
  nodeIp: '172.18.0.2',
  services: EXPECTED_SERVICES.map((name, index) => ({
    name,
    ip: `10.43.1.${index + 1}`,
    port: 7100 + index,
  })),
  redisPodIp: '10.42.0.9',
  otherAppPod: { ip: '10.42.0.20', port: 8080 },
  publicTarget: { host: '1.1.1.1', port: 443 },
};

describe('egressMatrix', () => {
  it('refuses every cluster, node and metadata destination, and the internet, to egress: none', () => {
    const rows = egressMatrix(FACTS, 'none');
    expect(rows.every((row) => row.expect === 'refused')).toBe(true);
    const targets = rows.map((row) => `${row.host}:${row.port}`);
    expect(targets).toEqual(
      expect.arrayContaining([
        '10.43.0.1:443',
        '172.18.0.2:6443',
        '172.18.0.2:10250',
        '10.42.0.9:6379',
        '169.254.169.254:80',
        '10.42.0.20:8080',
        '1.1.1.1:443',
      ]),
    );
    for (const service of FACTS.services) expect(targets).toContain(`${service.ip}:${service.port}`);
  });

  it('opens only the internet to egress: internet', () => {
    const open = egressMatrix(FACTS, 'internet').filter((row) => row.expect === 'connects');
    expect(open).toEqual([{ target: 'the internet', host: '1.1.1.1', port: 443, expect: 'connects' }]);
    expect(egressMatrix(FACTS, 'internet')).toHaveLength(egressMatrix(FACTS, 'none').length);
  });

  it('refuses to build a matrix missing one of our Services', () => {
    const facts = { ...FACTS, services: FACTS.services.filter((s) => s.name !== 'redis') };
    expect(() => egressMatrix(facts, 'none')).toThrow('has no Service redis');
  });
});

describe('matrixViolations', () => {
  const rows = egressMatrix(FACTS, 'internet');
  const asExpected = rows.map((row) =>
    row.expect === 'connects' ? { result: 'connected' as const } : { result: 'timeout' as const },
  );

  it('accepts refused, reset and timed-out connections alike, and the internet connecting', () => {
    expect(matrixViolations(rows, asExpected)).toEqual([]);
    const refusals = asExpected.map((o, i) =>
      i % 2 === 0 && o.result !== 'connected' ? { result: 'error' as const, detail: 'ECONNREFUSED' } : o,
    );
    expect(matrixViolations(rows, refusals)).toEqual([]);
  });

  it('names each destination that connected when it must not, or did not when it must', () => {
    const leaked = asExpected.map((o, i) => (i === 2 ? { result: 'connected' as const } : o));
    expect(matrixViolations(rows, leaked)).toEqual([
      'kubelet 172.18.0.2:10250: expected refused, got connected',
    ]);
    const offline = asExpected.map((o) =>
      o.result === 'connected' ? { result: 'error' as const, detail: 'ENETUNREACH' } : o,
    );
    expect(matrixViolations(rows, offline)).toEqual([
      'the internet 1.1.1.1:443: expected connects, got error ENETUNREACH',
    ]);
    expect(matrixViolations(rows, [])).toHaveLength(rows.length);
  });
});
