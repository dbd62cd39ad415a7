import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { runWith } from '../__fixtures__/memory-io';

/** What bash completes after `words` (the last word is the one being completed). */
function complete(script: string, words: string[]): string[] {
  const program = `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _sandboxctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '-c', program], { encoding: 'utf8' });
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('completion', () => {
  it('completes commands, subcommands and each command’s flags in bash', async () => {
    const { code, stdout } = await runWith(['completion', 'bash']);
    expect(code).toBe(0);
    expect(complete(stdout, ['sandboxctl', 'ap'])).toEqual(['apps']);
    expect(complete(stdout, ['sandboxctl', '-o', 'json', 'apps', ''])).toEqual(
      expect.arrayContaining(['apply', 'diff', 'list', 'get', 'delete']),
    );
    expect(complete(stdout, ['sandboxctl', 'apps', 'apply', '--d'])).toEqual(['--dry-run']);
    expect(complete(stdout, ['sandboxctl', 'apps', 'apply', '--'])).not.toContain('--version');
  });

  it('prints a zsh script that loads the same completion, and refuses other shells', async () => {
    const zsh = await runWith(['completion', 'zsh']);
    expect(zsh.stdout.split('\n')[0]).toBe('#compdef sandboxctl');
    expect(zsh.stdout).toContain('bashcompinit');
    expect((await runWith(['completion', 'fish'])).code).toBe(2);
  });
});
