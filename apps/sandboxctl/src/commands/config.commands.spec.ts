import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWith } from '../__fixtures__/memory-io';

let dir = '';
let env: Record<string, string> = {};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandboxctl-config-'));
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      '# operator contexts',
      'currentContext: lab',
      'contexts:',
      '  lab:',
      '    services:',
      '      adapter: { url: "http://lab:7102", tokenFile: read.token } # read-only',
      '  prod: {}',
      '',
    ].join('\n'),
  );
  env = { XDG_CONFIG_HOME: dir.replace(/\/[^/]+$/, ''), SANDBOXCTL_CONFIG: join(dir, 'config.yaml') };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config', () => {
  it('view shows the context in effect and each endpoint, token files by path', async () => {
    const result = await runWith(['config', 'view', '-o', 'json'], { env });
    expect(JSON.parse(result.stdout)).toEqual({
      configFile: join(dir, 'config.yaml'),
      context: 'lab',
      contexts: ['lab', 'prod'],
      endpoints: {
        'instance-manager': { url: 'http://127.0.0.1:7101' },
        adapter: { url: 'http://lab:7102', tokenFile: join(dir, 'read.token') },
        'redemption-handoff': { url: 'http://127.0.0.1:7104' },
      },
    });
    const env2 = { ...env, SANDBOXCTL_REDEMPTION_HANDOFF_URL: 'http://env:1' };
    expect((await runWith(['config', 'view'], { env: env2 })).stdout).toMatch(
      /^redemption-handoff\s+http:\/\/env:1\s+-$/m,
    );
  });

  it('use-context switches the current context and keeps comments', async () => {
    expect(await runWith(['config', 'use-context', 'prod'], { env })).toEqual({
      code: 0,
      stdout: 'switched to context "prod"\n',
      stderr: '',
    });
    const text = readFileSync(join(dir, 'config.yaml'), 'utf8');
    expect(text).toContain('currentContext: prod');
    expect(text).toContain('# read-only');
    expect((await runWith(['config', 'use-context', 'staging'], { env })).code).toBe(2);
  });
});
