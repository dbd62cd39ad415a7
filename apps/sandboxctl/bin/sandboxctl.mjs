#!/usr/bin/env node
// `npx sandboxctl` from the repository: runs src/main.ts under Node 24 with tsx. Plain JavaScript so it
// starts on any Node; when the running Node is older it uses the one `npm run setup` put in .tools/.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const main = join(here, '..', 'src', 'main.ts');
const bundledNode = join(root, '.tools', 'node24', 'node_modules', 'node', 'bin', 'node');
const major = Number(process.versions.node.split('.')[0]);
const node = major >= 24 ? process.execPath : bundledNode;
if (node === bundledNode && !existsSync(bundledNode)) {
  process.stderr.write(`sandboxctl needs Node 24 (this is ${process.versions.node}); run: npm run setup\n`);
  process.exit(1);
}
const tsx = import.meta.resolve('tsx');
const child = spawn(node, ['--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
