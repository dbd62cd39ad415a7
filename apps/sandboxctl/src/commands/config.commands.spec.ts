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
        adapter: {
          url: 'http://lab:7102',
          tokenFile: join(dir, 'read.token'),
          tokenSource: 'context "lab", adapter',
        },
        'redemption-handoff': { url: 'http://127.0.0.1:7104' },
        'drain-controller': { url: 'http://127.0.0.1:7103' },
        verifier: { url: 'http://127.0.0.1:7105' },
      },
    });
    const env2 = { ...env, SANDBOXCTL_REDEMPTION_HANDOFF_URL: 'http://env:1' };
    expect((await runWith(['config', 'view'], { env: env2 })).stdout).toMatch(
      /^redemption-handoff\s+http:\/\/env:1\s+-\s+-$/m,
    );
  });

  it("view names the embedded stack's token where nothing else is configured, on this machine only", async () => {
    const stackTokenFile = join(dir, 'stack-admin-token');
    const result = await runWith(['config', 'view', '--context', 'prod'], { env, stackTokenFile });
    expect(result.stdout).toMatch(
      new RegExp(
        `^adapter\\s+http://127.0.0.1:7102\\s+${stackTokenFile}\\s+the embedded stack's admin token$`,
        'm',
      ),
    );
    const remote = await runWith(['config', 'view', '--server', 'adapter=http://lab:7102'], {
      env: { ...env, SANDBOXCTL_CONFIG: join(dir, 'none.yaml') },
      stackTokenFile,
    });
    expect(remote.stdout).toMatch(/^adapter\s+http:\/\/lab:7102\s+-\s+-$/m);
    const help = await runWith(['--help'], { env, stackTokenFile });
    expect(help.stdout).toContain(
      `the embedded stack's admin token, ${stackTokenFile}, to services on this machine`,
    );
    expect((await runWith(['--help'], { env })).stdout).toContain(
      'with none of them: none (no .data/secrets/admin-token',
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
