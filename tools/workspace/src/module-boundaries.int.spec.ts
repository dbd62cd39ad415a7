// Proves the lint rules that keep the architecture honest actually fire, by linting small sources
// as if they lived at paths inside the projects.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: root });

// The boundary rule skips itself (with only a warning) when Nx has no cached project graph.
beforeAll(() => {
  execFileSync(process.execPath, [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
    cwd: root,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    stdio: 'ignore',
  });
});

async function ruleIds(code: string, path: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, path) });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('module boundaries', () => {
  it('rejects an app importing another app, by alias or by path', async () => {
    expect(await ruleIds("import '@sandbox/redemption-handoff';\n", 'apps/dashboard/src/bad.ts')).toEqual([
      expect.stringContaining('Imports of apps are forbidden'),
    ]);
    expect(
      await ruleIds("import '../../redemption-handoff/src/main';\n", 'apps/dashboard/src/bad.ts'),
    ).toEqual([expect.stringContaining('@nx/enforce-module-boundaries')]);
  });

  it('rejects libs/protocol importing anything but zod', async () => {
    const bad = await ruleIds(
      "import pino from 'pino';\nexport const p = pino;\n",
      'libs/protocol/src/bad.ts',
    );
    expect(bad).toEqual([expect.stringContaining('@nx/enforce-module-boundaries')]);
    const good = await ruleIds(
      "import { z } from 'zod';\nexport const s = z.string();\n",
      'libs/protocol/src/ok.ts',
    );
    expect(good).toEqual([]);
  });

  it('rejects a library importing the test-only library outside tests', async () => {
    const code = "import { waitFor } from '@sandbox/testing';\nexport const w = waitFor;\n";
    expect(await ruleIds(code, 'libs/queue/src/bad.ts')).toEqual([
      expect.stringContaining('@nx/enforce-module-boundaries'),
    ]);
    expect(await ruleIds(code, 'libs/queue/src/ok.int.spec.ts')).toEqual([]);
  });

  it('rejects process.env outside config.ts', async () => {
    const code = 'export const port = process.env.PORT;\n';
    expect(await ruleIds(code, 'apps/dashboard/src/app.ts')).toEqual([
      expect.stringContaining('no-restricted-properties'),
    ]);
    expect(await ruleIds(code, 'apps/dashboard/src/config.ts')).toEqual([]);
  });
});
