import { describe, expect, it } from '@jest/globals';
import { workspaceVersion } from './workspace-version';

describe('workspaceVersion', () => {
  const files: Record<string, string> = {
    '/repo/package.json': JSON.stringify({ name: 'root', version: '1.2.3', workspaces: ['libs/*'] }),
    '/repo/libs/kit/package.json': JSON.stringify({ name: 'kit', version: '0.0.0' }),
    '/bare/package.json': '{ not json',
  };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return text;
  };

  it("reads the workspace root's version, past a library's own package.json", () => {
    expect(workspaceVersion('/repo/libs/kit/src/service', read)).toBe('1.2.3');
    expect(workspaceVersion('/repo/dist/apps/adapter', read)).toBe('1.2.3');
  });

  it('is undefined outside a workspace', () => {
    expect(workspaceVersion('/bare/bin', read)).toBeUndefined();
  });

  it('finds this repository from the kit itself', () => {
    expect(workspaceVersion(import.meta.dirname)).toMatch(/^\d+\.\d+\.\d+/);
  });
});
