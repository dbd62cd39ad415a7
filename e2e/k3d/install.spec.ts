import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LEASE_STANDBY_LABEL, leaseRolledOut, volumeClaims } from './install';
import { REPO_ROOT } from './node-image';

const workload = (status: { updatedReplicas?: number; readyReplicas?: number; replicas?: number }) => ({
  metadata: { name: 'adapter', labels: { [LEASE_STANDBY_LABEL]: 'true' } },
  spec: { replicas: 2 },
  status,
});

describe('waiting for a lease Deployment', () => {
  it('is done when both replicas run the new template and one (the holder) is ready', () => {
    expect(leaseRolledOut(workload({ updatedReplicas: 2, replicas: 2, readyReplicas: 1 }))).toBe(true);
  });

  it('waits while an old pod remains, a replica is not updated, or no holder is ready', () => {
    expect(leaseRolledOut(workload({ updatedReplicas: 2, replicas: 3, readyReplicas: 1 }))).toBe(false);
    expect(leaseRolledOut(workload({ updatedReplicas: 1, replicas: 2, readyReplicas: 1 }))).toBe(false);
    expect(leaseRolledOut(workload({ updatedReplicas: 2, replicas: 2, readyReplicas: 0 }))).toBe(false);
    expect(leaseRolledOut(workload({}))).toBe(false);
  });

  it('is named on exactly the Deployments whose standby stays unready', async () => {
    for (const name of ['adapter', 'drain-controller', 'instance-manager']) {
      const text = await readFile(join(REPO_ROOT, 'deploy', 'base', `${name}.yaml`), 'utf8');
      expect(text).toContain(`${LEASE_STANDBY_LABEL}: 'true'`);
      expect(text).toContain('maxUnavailable: 100%');
    }
    // The hand-off's standby takes tickets and is ready: `kubectl rollout status` fits it.
    const handoff = await readFile(join(REPO_ROOT, 'deploy', 'base', 'redemption-handoff.yaml'), 'utf8');
    expect(handoff).not.toContain(LEASE_STANDBY_LABEL);
  });
});

describe('the claims an overlay makes', () => {
  it('lists PersistentVolumeClaims and one claim per StatefulSet replica and template', () => {
    const objects = [
      {
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'ledger', namespace: 'sandbox-system' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '256Mi' } } },
      },
      {
        kind: 'StatefulSet',
        metadata: { name: 'redis', namespace: 'sandbox-system' },
        spec: {
          replicas: 2,
          volumeClaimTemplates: [
            { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '2Gi' } } } },
          ],
        },
      },
      { kind: 'Deployment', metadata: { name: 'adapter', namespace: 'sandbox-system' } },
    ];
    expect(volumeClaims(objects)).toEqual([
      { namespace: 'sandbox-system', name: 'ledger', storage: '256Mi', accessModes: ['ReadWriteOnce'] },
      { namespace: 'sandbox-system', name: 'data-redis-0', storage: '2Gi', accessModes: ['ReadWriteOnce'] },
      { namespace: 'sandbox-system', name: 'data-redis-1', storage: '2Gi', accessModes: ['ReadWriteOnce'] },
    ]);
  });
});
