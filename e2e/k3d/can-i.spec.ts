import { describe, expect, it } from '@jest/globals';
import { canIArgs, parseCanI } from './can-i';

const AS = [
  '--as=system:serviceaccount:sandbox-system:adapter',
  '--as-group=system:serviceaccounts',
  '--as-group=system:serviceaccounts:sandbox-system',
  '--as-group=system:authenticated',
];

describe('canIArgs', () => {
  it('names a resource by name in its namespace', () => {
    expect(
      canIArgs('adapter', {
        verb: 'get',
        resource: 'secrets',
        namespace: 'sandbox-system',
        name: 'adapter-bootstrap',
      }),
    ).toEqual(['auth', 'can-i', 'get', 'secrets/adapter-bootstrap', '--namespace', 'sandbox-system', ...AS]);
  });

  it('qualifies grouped resources, passes subresources, and asks cluster-wide with --all-namespaces', () => {
    expect(
      canIArgs('adapter', {
        verb: 'patch',
        resource: 'deployments',
        group: 'apps',
        namespace: 'sandbox-system',
        name: 'livepeer-node',
        subresource: 'scale',
      }),
    ).toEqual([
      'auth',
      'can-i',
      'patch',
      'deployments.apps/livepeer-node',
      '--subresource=scale',
      '--namespace',
      'sandbox-system',
      ...AS,
    ]);
    expect(canIArgs('adapter', { verb: 'list', resource: 'nodes' })).toEqual([
      'auth',
      'can-i',
      'list',
      'nodes',
      '--all-namespaces',
      ...AS,
    ]);
    expect(canIArgs('adapter', { verb: '*', resource: '*', group: '*' }).slice(2, 4)).toEqual(['*', '*']);
  });
});

describe('parseCanI', () => {
  it('reads yes and no with their exit codes, and refuses anything else', () => {
    expect(parseCanI('yes\n', 0)).toBe(true);
    expect(parseCanI('no\n', 1)).toBe(false);
    expect(parseCanI('no - RBAC: role not found\n', 1)).toBe(false);
    expect(() => parseCanI('', 1)).toThrow('answered ""');
    expect(() => parseCanI('yes', 1)).toThrow('exit 1');
  });
});
