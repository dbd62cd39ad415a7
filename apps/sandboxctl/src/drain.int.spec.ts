// The drain commands against the real services of `npm start`: the drain-controller drives a real
// restart of the Node simulator through the stack's supervisor, as an operator's drain would.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DrainRecordSchema } from '@sandbox/protocol';
import { startStack, type StackProcess } from '@sandbox/testing';
import { readFileSync } from 'node:fs';
import { drainControllerRoutes } from '@sandbox/protocol';
import { cliEnvironment } from './__fixtures__/cli-env';
import { runWith, type CliRun } from './__fixtures__/memory-io';
import { compareWithOpenApi } from './__fixtures__/openapi-compare';

let stack: StackProcess;
let cli: ReturnType<typeof cliEnvironment>;
const run = (...argv: string[]) => runWith(argv, { env: cli.env });
const admin = () => ({ authorization: `Bearer ${readFileSync(stack.tokenFile('admin'), 'utf8')}` });
const json = (result: CliRun): unknown => JSON.parse(result.stdout);

beforeAll(async () => {
  // A prefix and subnet of its own, so its namespaces and chains never meet another test's.
  const env = {
    INSTANCE_PREFIX: 'sdr',
    INSTANCE_SUBNET: '10.222.0.0/24',
  };
  stack = await startStack({ env: { ...env, LOG_LEVEL: 'warn' }, keepChars: 50_000 });
  cli = cliEnvironment(stack);
}, 400_000);

afterAll(async () => {
  await stack?.cleanup();
  cli?.cleanup();
}, 180_000);

describe('drains on the drain-controller', () => {
  const drainOf = (result: CliRun) => DrainRecordSchema.parse(json(result));

  it("keeps the client's contracts in step with the drain-controller's OpenAPI document", async () => {
    const url = `http://127.0.0.1:${stack.ports.DRAIN_CONTROLLER_PORT}/v1/openapi.json`;
    const document = (await (await fetch(url, { headers: admin() })).json()) as Parameters<
      typeof compareWithOpenApi
    >[1];
    expect(compareWithOpenApi(Object.values(drainControllerRoutes), document)).toEqual([]);
  });

  it('start, status, extend --to, a second start refused, abort', async () => {
    const started = await run(
      'drain',
      'start',
      '--window',
      '1h',
      '--restart',
      '--quiet-period',
      '1h',
      '-o',
      'json',
    );
    expect(started.code).toBe(0);
    const drain = drainOf(started);
    expect([drain.target, drain.windowMs]).toEqual([{ restart: true }, 3_600_000]);
    expect((await run('drain', 'status')).stdout).toMatch(
      new RegExp(`^drain/${drain.id} (withdrawing|draining)`, 'm'),
    );
    const extended = drainOf(await run('drain', 'extend', '--to', '10h', '-o', 'json'));
    expect(Date.parse(extended.deadline) - Date.parse(extended.createdAt)).toBe(10 * 3_600_000);
    const second = await run('drain', 'start', '--restart');
    expect([second.code, second.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: drain-controller refused \(409 drain_in_progress\): /),
    ]);
    expect((await run('status')).stdout).toMatch(new RegExp(`Drain controller:\\s+drain/${drain.id} `));
    expect((await run('drain', 'abort')).code).toBe(0);
    const deadline = Date.now() + 60_000;
    let phase = '';
    while (Date.now() < deadline && phase !== 'aborted') {
      phase = drainOf(await run('drain', 'status', drain.id, '-o', 'json')).phase;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(phase).toBe('aborted');
  }, 90_000);

  it('start --restart --watch follows a real restart of Node to done', async () => {
    const result = await run(
      'drain',
      'start',
      '--window',
      '1h',
      '--restart',
      '--quiet-period',
      '0s',
      '--watch',
      '--timeout',
      '3m',
    );
    expect(result.stderr).toMatch(/^drain\/[\w-]+ replacing, /m);
    expect([result.code, result.stdout]).toEqual([0, expect.stringMatching(/^drain\/[\w-]+ done/)]);
  }, 240_000);
});
