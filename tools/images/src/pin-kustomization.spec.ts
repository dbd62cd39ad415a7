import { describe, expect, it } from '@jest/globals';
import { pinKustomization, splitReference } from './pin-kustomization';

describe('pinKustomization', () => {
  it('pins each image to its tag, sorted, on top of the overlay', () => {
    const text = pinKustomization('../deploy/k3d', [
      'localhost/sandbox-dashboard:0011223344556677',
      'localhost/sandbox-adapter:8899aabbccddeeff',
    ]);
    expect(text).toContain('resources:\n  - ../deploy/k3d\n');
    expect(text).toContain(
      [
        'images:',
        '  - name: localhost/sandbox-adapter',
        "    newTag: '8899aabbccddeeff'",
        '  - name: localhost/sandbox-dashboard',
        "    newTag: '0011223344556677'",
      ].join('\n'),
    );
  });

  it('splits a reference at its tag, not at a registry port', () => {
    expect(splitReference('localhost:5000/sandbox-a:abc')).toEqual({
      name: 'localhost:5000/sandbox-a',
      tag: 'abc',
    });
    expect(() => splitReference('localhost:5000/sandbox-a')).toThrow('without a tag');
  });
});
