// Starts one image under gVisor the way a pod runs it (read-only root filesystem, the image's own
// non-root user, no capabilities, no privilege escalation) and times how long it takes to answer
// `/healthz`. The sandbox shares the host's loopback (runsc `network=host`, no namespace or iptables
// rule is created), so a throwaway Redis and the port can be plain loopback addresses.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardContainer } from '@sandbox/process';
import { runCommand, type CommandRunner } from '@sandbox/sandbox-local';
import { findFreePort, waitFor } from '@sandbox/testing';
import type { CatalogImage } from './catalog';

/** What {@link startCheck} measured. */
export interface StartCheckResult {
  /** From `podman run` to the first 200 from `/healthz`. */
  startupMs: number;
  /** The answer of `/healthz`. */
  health: string;
}

export interface StartCheckOptions {
  name: string;
  tag: string;
  image: CatalogImage;
  /** A durable Redis for images that need one. */
  redisUrl?: string;
  /** Container name prefix: unique per run, so two runs cannot meet. */
  containerPrefix: string;
  /** @defaultValue 'runsc' (Debian's, registered with podman) */
  runtime?: string;
  run?: CommandRunner;
  timeoutMs?: number;
}

/** Writes one random canary secret per secret-file variable, readable by the image's user only. */
async function secretMounts(dir: string, variables: readonly string[]) {
  const env: Record<string, string> = {};
  const values: Record<string, string> = {};
  const mounts: string[] = [];
  for (const variable of variables) {
    const file = join(dir, variable.toLowerCase());
    // 64 lowercase hex characters: valid for every secret file (the verifier's key needs exactly that).
    values[variable] = randomBytes(32).toString('hex');
    await writeFile(file, values[variable], { mode: 0o600 });
    await runCommand('chown', ['65534:65534', file]);
    const inside = `/run/secrets/${variable.toLowerCase()}`;
    mounts.push(`--volume=${file}:${inside}:ro`);
    env[variable] = inside;
  }
  return { env, mounts, values };
}

function podmanArgs(options: StartCheckOptions, port: number, container: string, extra: string[]) {
  const { start } = options.image;
  const env = [...(start.portFrom === 'env' ? [`--env=PORT=${port}`] : []), '--env=HOST=127.0.0.1'];
  const tail = start.args ? ['/usr/local/bin/node', '/app/main.mjs', ...start.args(port)] : [];
  return [
    ...['run', '--detach', '--pull=never', `--name=${container}`, `--runtime=${options.runtime ?? 'runsc'}`],
    ...['--runtime-flag=network=host', '--network=host', '--read-only', '--cap-drop=all'],
    '--security-opt=no-new-privileges',
    ...env,
    ...extra,
    options.tag,
    ...tail,
  ];
}

async function healthOnce(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return response.status === 200 ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops and removes the container. A service shutting down on its own as podman kills it can make
 * one `rm --force` fail, so removal is checked and retried.
 */
async function removeContainer(run: CommandRunner, container: string): Promise<void> {
  await run('podman', ['stop', '--time=10', container], { allowFailure: true, timeoutMs: 30_000 });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await run('podman', ['rm', '--force', '--ignore', container], { allowFailure: true, timeoutMs: 30_000 });
    const exists = await run('podman', ['container', 'exists', container], { allowFailure: true });
    if (exists.exitCode !== 0) return;
  }
  throw new Error(`container ${container} could not be removed`);
}

/** Starts the image, waits for `/healthz`, removes the container, and reports the start-up time. */
export async function startCheck(options: StartCheckOptions): Promise<StartCheckResult> {
  const run = options.run ?? runCommand;
  const { start } = options.image;
  if (start.redis && !options.redisUrl) throw new Error(`${options.name} needs a Redis to start`);
  const port = await findFreePort();
  const container = `${options.containerPrefix}-${options.name}`;
  const dir = await mkdtemp(join(tmpdir(), 'image-start-'));
  // Removes the container if this process dies before the `finally` below (a killed test or build).
  const guard = guardContainer(container);
  try {
    const secrets = await secretMounts(dir, start.secretFiles);
    const env = { ...start.env, ...secrets.env, ...(start.redis ? { REDIS_URL: options.redisUrl } : {}) };
    const envArgs = Object.entries(env).map(([key, value]) => `--env=${key}=${value}`);
    const startedAt = performance.now();
    await run('podman', podmanArgs(options, port, container, [...envArgs, ...secrets.mounts]), {
      timeoutMs: 60_000,
    });
    let health = '';
    await waitFor(
      async () => {
        health = (await healthOnce(`http://127.0.0.1:${port}/healthz`)) ?? '';
        return health !== '';
      },
      { description: `${options.name} to answer /healthz`, timeoutMs: options.timeoutMs ?? 60_000 },
    ).catch(async (error: unknown) => {
      const logs = await run('podman', ['logs', '--tail=20', container], { allowFailure: true });
      throw new Error(`${String(error)}; last output:\n${logs.stdout}${logs.stderr}`);
    });
    const startupMs = Math.round(performance.now() - startedAt);
    // The management API's paths need the read token (the one the check wrote for this start).
    const read = secrets.values['READ_TOKEN_FILE'];
    const headers: Record<string, string> = read ? { authorization: `Bearer ${read}` } : {};
    for (const path of start.paths ?? []) {
      const url = `http://127.0.0.1:${port}${path}`;
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
      if (response.status !== 200)
        throw new Error(`${options.name}: GET ${path} answered ${response.status}`);
    }
    return { startupMs, health };
  } finally {
    await removeContainer(run, container);
    guard.release();
    await rm(dir, { recursive: true, force: true });
  }
}
