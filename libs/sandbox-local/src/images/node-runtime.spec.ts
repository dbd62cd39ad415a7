import { describe, expect, it } from '@jest/globals';
import { parseLddOutput } from './node-runtime';

describe('parseLddOutput', () => {
  it('lists resolved libraries and the loader, without the vDSO', () => {
    const output = [
      '\tlinux-vdso.so.1 (0x00007ffd)',
      '\tlibdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f6e)',
      '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f6e)',
      '\t/lib64/ld-linux-x86-64.so.2 (0x00007f6e)',
      '',
    ].join('\n');
    expect(parseLddOutput(output)).toEqual([
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
  });

  it('fails on a missing library', () => {
    expect(() => parseLddOutput('\tlibfoo.so.1 => not found\n')).toThrow('missing shared library');
  });
});
