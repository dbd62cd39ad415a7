import { describe, expect, it } from '@jest/globals';
import { KUBE_FIELD_MANAGER } from './kubernetes-connect';

describe('the Kubernetes driver', () => {
  it('applies as field manager instance-manager (persistent: ownership of every applied field)', () => {
    expect(KUBE_FIELD_MANAGER).toBe('instance-manager');
  });
});
