#!/usr/bin/env node
// The one entry point behind `npm start`, `npm test`, `npm run bench`, lint and typecheck.
// It must run on whatever Node the machine ships (Node 20 on a fresh Debian box), so it is plain
// JavaScript with no dependencies: it installs Node 24 from the npm registry when the running Node
// is older and re-executes itself under it, installs npm packages when the lock file changed, and
// installs the Debian packages the system needs (as root) or prints the one command to run.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const NODE_MAJOR = 24;
const NODE_DIR = join(ROOT, '.tools', `node${NODE_MAJOR}`);
const NODE_BIN_DIR = join(NODE_DIR, 'node_modules', 'node', 'bin');
/** Debian packages by the binary that proves each is installed. */
const DEBIAN_PACKAGES = {
  'redis-server': 'redis-server',
  runsc: 'runsc',
  podman: 'podman',
  iptables: 'iptables',
  ip: 'iproute2',
  // The local driver clears an instance's flows from the connection-tracking table after a restore.
  conntrack: 'conntrack',
  openssl: 'openssl',
  // The kube harness's local node: Debian's containerd and CNI plugins (bridge, host-local).
  containerd: 'containerd',
  '/usr/lib/cni/bridge': 'containernetworking-plugins',
  // The local cluster's NetworkPolicy controller (kube-router) keeps its address sets in ipsets.
  ipset: 'ipset',
};

const COMMANDS = {
  setup: { debian: true, run: () => 0 },
  start: { debian: true, run: (args) => runNode(['--import', 'tsx', 'tools/stack/src/main.ts', ...args]) },
  test: {
    debian: true,
    run: (args) =>
      runNode(['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', bin('jest'), ...args]),
  },
  images: { debian: true, run: (args) => runNode(['--import', 'tsx', 'tools/images/src/main.ts', ...args]) },
  'kube-build': {
    debian: false,
    run: () => runNode(['--import', 'tsx', 'tools/kube-harness/src/build/main.ts']),
  },
  // The k3d suite: Docker, kubectl and k3d (not Debian packages); it says what is missing itself.
  'e2e-k3d': { debian: false, run: (args) => runNode(['--import', 'tsx', 'e2e/k3d/main.ts', ...args]) },
  // The same suite on a one-node cluster on this host (root; the node's parts are built from source).
  'e2e-node': {
    debian: true,
    run: (args) => runNode(['--import', 'tsx', 'e2e/k3d/main.ts', '--provider', 'local-node', ...args]),
  },
  'node-sim': {
    debian: false,
    run: (args) => runNode(['--import', 'tsx', 'tools/node-sim/src/main.ts', ...args]),
  },
  bench: { debian: true, run: (args) => runNode(['--import', 'tsx', 'tools/bench/src/main.ts', ...args]) },
  soak: { debian: true, run: (args) => runNode(['--import', 'tsx', 'tools/soak/src/main.ts', ...args]) },
  lint: {
    debian: false,
    run: (args) => {
      // @nx/enforce-module-boundaries silently skips itself when no project graph is cached: build it first.
      if (sh(process.execPath, [bin('nx'), 'show', 'projects'], { stdio: 'ignore', env: nxEnv() }) !== 0)
        return 1;
      return runNode([bin('eslint'), '--max-warnings=0', '.', ...args]);
    },
  },
  typecheck: { debian: false, run: ([project]) => runNode([bin('tsc'), '-p', typecheckConfig(project)]) },
  build: {
    debian: false,
    run: () => {
      const status = sh(process.execPath, [bin('tsc'), '-p', 'tsconfig.json']);
      if (status !== 0) return status;
      return runNode(['--import', 'tsx', 'tools/build/src/main.ts']);
    },
  },
};

function log(message) {
  process.stderr.write(`[dev] ${message}\n`);
}

function fail(message) {
  log(message);
  process.exit(1);
}

function bin(name) {
  const paths = {
    nx: 'node_modules/nx/dist/bin/nx.js',
    jest: 'node_modules/jest/bin/jest.js',
    eslint: 'node_modules/eslint/bin/eslint.js',
    tsc: 'node_modules/typescript/bin/tsc',
  };
  return join(ROOT, paths[name]);
}

function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.error) fail(`${command} could not run: ${result.error.message}`);
  return result.status ?? 1;
}

function has(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

function ensureNode24() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NODE_MAJOR) return;
  if (!existsSync(join(NODE_BIN_DIR, 'node'))) {
    log(
      `Node ${process.versions.node} is older than ${NODE_MAJOR}; installing node@${NODE_MAJOR} into .tools/`,
    );
    mkdirSync(NODE_DIR, { recursive: true });
    // A package.json of its own keeps npm from treating the repository as the project to install into.
    writeFileSync(join(NODE_DIR, 'package.json'), '{ "private": true }\n');
    const status = sh('npm', ['install', '--no-audit', '--no-fund', '--no-save', `node@${NODE_MAJOR}`], {
      cwd: NODE_DIR,
    });
    if (status !== 0) fail(`installing node@${NODE_MAJOR} failed`);
  }
  const child = spawn(
    join(NODE_BIN_DIR, 'node'),
    [fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      cwd: process.cwd(),
      stdio: 'inherit',
      env: { ...process.env, PATH: `${NODE_BIN_DIR}:${process.env.PATH ?? ''}` },
    },
  );
  relaySignals(child);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return 'reexec';
}

function ensureNpmPackages() {
  const lock = join(ROOT, 'package-lock.json');
  const stamp = join(ROOT, 'node_modules', '.sandbox-install-stamp');
  const digest = createHash('sha256')
    .update(readFileSync(join(ROOT, 'package.json')))
    .update(existsSync(lock) ? readFileSync(lock) : '')
    .update(process.versions.node)
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  log('installing npm packages');
  // `npm ci` (exact, from scratch) on a fresh clone or in CI; `npm install` keeps a developer's tree.
  const clean = existsSync(lock) && (process.env.CI === 'true' || !existsSync(join(ROOT, 'node_modules')));
  const status = sh('npm', [clean ? 'ci' : 'install', '--no-audit', '--no-fund']);
  if (status !== 0) fail('npm install failed');
  writeFileSync(stamp, digest);
}

function ensureDebianPackages() {
  const missing = Object.entries(DEBIAN_PACKAGES)
    .filter(
      ([binary]) => !has(binary) && !existsSync(`/usr/sbin/${binary}`) && !existsSync(`/sbin/${binary}`),
    )
    .map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  // With recommends, as a plain `apt-get install podman` would: what the tests were proven against.
  const install = ['install', '-y', ...missing];
  if (process.getuid?.() !== 0) {
    fail(`missing Debian packages; run once: sudo apt-get update && sudo apt-get ${install.join(' ')}`);
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (sh('apt-get', ['update'], { env }) !== 0) fail('apt-get update failed');
  if (sh('apt-get', install, { env }) !== 0) fail(`apt-get ${install.join(' ')} failed`);
}

function relaySignals(child) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
}

/**
 * The tsconfig to check: the whole repository's, or for one project folder (`typecheck apps/adapter`,
 * as Nx's typecheck target runs it) a generated one with the same options over that folder alone.
 */
function typecheckConfig(project) {
  if (!project) return 'tsconfig.json';
  const folder = join(ROOT, project);
  if (!existsSync(folder)) fail(`typecheck: no such folder: ${project}`);
  const config = join(ROOT, 'node_modules', '.cache', 'typecheck', `${project.replaceAll('/', '__')}.json`);
  mkdirSync(dirname(config), { recursive: true });
  const body = {
    extends: join(ROOT, 'tsconfig.base.json'),
    include: [join(folder, '**', '*.ts')],
    exclude: [join(folder, '**', 'node_modules'), join(folder, '**', 'dist')],
  };
  writeFileSync(config, `${JSON.stringify(body, null, 2)}\n`);
  return config;
}

function nxEnv() {
  return { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
}

function runNode(args) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...nxEnv(), PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
  });
  relaySignals(child);
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
}

function main() {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) fail(`usage: node scripts/dev.mjs <${Object.keys(COMMANDS).join('|')}> [args...]`);
  if (ensureNode24() === 'reexec') return;
  ensureNpmPackages();
  if (command.debian) ensureDebianPackages();
  const status = command.run(args);
  if (typeof status === 'number') process.exit(status);
}

main();
