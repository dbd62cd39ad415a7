// Every command against the real services of `npm start` (real Redis, the Node simulator, the adapter,
// redemption-handoff and, as root, instance-manager on the local gVisor driver), as an operator runs it.
// As root in paid mode the stack also declares its own app (eval-responder), which the verifier pays
// sessions on, so tickets and sessions may appear at any time: assertions look only at what the test
// made, or at the shape of what the services report.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ALL_APIS,
  AppListSchema,
  AppResourceSchema,
  InstanceListSchema,
  LiabilitiesResponseSchema,
  openApiDocument,
  RunnersResponseSchema,
  SignedEvaluationReportSchema,
  TargetListResponseSchema,
  TicketListResponseSchema,
} from '@sandbox/protocol';
import { ensureExampleAppImage } from '@sandbox/sandbox-local/testing';
import { asRoot, describeRequiring, findFreePort, startStack, type StackProcess } from '@sandbox/testing';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { instanceManagerRoutes } from '@sandbox/protocol';
import { compareWithOpenApi } from './__fixtures__/openapi-compare';
import { cliEnvironment, exampleManifest } from './__fixtures__/cli-env';
import { runWith, type CliRun } from './__fixtures__/memory-io';

const isRoot = process.getuid?.() === 0;
const describeAsRoot = describeRequiring(asRoot);
const APP = 'ctl-echo';

let stack: StackProcess;
let cli: ReturnType<typeof cliEnvironment>;
let image = '';
const run = (...argv: string[]) => runWith(argv, { env: cli.env });
/** Headers of a direct call to a management API (the checks that bypass the CLI). */
const admin = () => ({ authorization: `Bearer ${readFileSync(stack.tokenFile('admin'), 'utf8')}` });
const json = (result: CliRun): unknown => JSON.parse(result.stdout);
/** What `sessions list -o json` prints: its own summary of the adapter's runners. */
const SessionRowsSchema = z.object({
  sessions: z.array(
    z.object({ sessionId: z.string(), app: z.string(), runnerId: z.string(), instanceId: z.string() }),
  ),
});

beforeAll(async () => {
  if (isRoot) image = await ensureExampleAppImage();
  // A prefix and subnet of its own, so its namespaces and chains never meet another test's.
  const env = {
    INSTANCE_PREFIX: 'sct',
    INSTANCE_SUBNET: '10.221.0.0/24',
    // Paid mode: Node refuses unpriced runners, which apply --wait must report.
    NODE_SIM_PAID: 'true',
  };
  stack = await startStack({ env: { ...env, LOG_LEVEL: 'warn' }, keepChars: 50_000 });
  cli = cliEnvironment(stack);
}, 400_000);

afterAll(async () => {
  if (cli && isRoot) await run('apps', 'delete', APP, '--wait', '--timeout', '90s');
  await stack?.cleanup();
  cli?.cleanup();
}, 180_000);

describe('reading commands', () => {
  it('status shows every service live and ready, Redis durable, and exits 0 only when all is well', async () => {
    const result = await run('status');
    // Every service reports the workspace's version (SERVICE_VERSION is not set by the stack).
    const version = (
      JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')) as {
        version: string;
      }
    ).version.replace(/\./g, '\\.');
    expect(result.stdout).toMatch(new RegExp(`^adapter\\s+yes\\s+${version}\\s+ready\\s+redis=pass`, 'm'));
    expect(result.stdout).toMatch(
      new RegExp(`^redemption-handoff\\s+yes\\s+${version}\\s+ready\\s+redis=pass redis-durable=pass`, 'm'),
    );
    expect(result.stdout).toContain('Redis durability: durable');
    expect(result.stdout).toMatch(/Drain:\s+none \(open\)/);
    expect(result.stdout).toMatch(/^Tickets:\s+\d+\+? pending, \d+(\.\d+)? ETH at risk/m);
    expect(result.code).toBe(isRoot ? 0 : 1);
    const body = z
      .object({
        services: z.array(z.object({ service: z.string(), version: z.string(), ready: z.boolean() })),
      })
      .parse(json(await run('status', '-o', 'json')));
    expect(body.services.map((row) => row.service)).toEqual([
      'instance-manager',
      'adapter',
      'redemption-handoff',
      'drain-controller',
      'verifier',
    ]);
  });

  it('every service publishes the OpenAPI document of the contracts sandboxctl calls through', async () => {
    const ports: Record<string, number | undefined> = {
      // instance-manager runs only as root (the local gVisor driver).
      'instance-manager': isRoot ? stack.ports.INSTANCE_MANAGER_PORT : undefined,
      adapter: stack.ports.ADAPTER_PORT,
      'drain-controller': stack.ports.DRAIN_CONTROLLER_PORT,
      'redemption-handoff': stack.ports.REDEMPTION_HANDOFF_PORT,
      verifier: stack.ports.VERIFIER_PORT,
      dashboard: stack.ports.DASHBOARD_PORT,
    };
    const checked: string[] = [];
    for (const api of ALL_APIS) {
      const port = ports[api.service];
      if (port === undefined) continue;
      const response = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`, { headers: admin() });
      const served = (await response.json()) as Parameters<typeof compareWithOpenApi>[1];
      expect([api.service, compareWithOpenApi(Object.values(api.routes), served)]).toEqual([api.service, []]);
      expect(served).toEqual(openApiDocument(api));
      checked.push(api.service);
    }
    expect(checked).toHaveLength(isRoot ? 6 : 5);
  });

  it('runners, sessions and tickets print tables and protocol documents', async () => {
    expect(RunnersResponseSchema.parse(json(await run('runners', 'list', '-o', 'json'))).drain.mode).toBe(
      'open',
    );
    const sessions = SessionRowsSchema.parse(json(await run('sessions', 'list', '-o', 'json')));
    expect(sessions.sessions.filter((row) => row.app === APP)).toEqual([]);
    expect(json(await run('sessions', 'list', '--app', APP, '-o', 'json'))).toEqual({ sessions: [] });
    expect(
      TicketListResponseSchema.parse(json(await run('tickets', 'list', '-o', 'json'))).tickets,
    ).toBeInstanceOf(Array);
    const status = json(await run('tickets', 'status', '-o', 'json')) as { payers: unknown[] };
    expect(LiabilitiesResponseSchema.shape.payers.parse(status.payers)).toBeInstanceOf(Array);
    expect((await run('tickets', 'status')).stdout).toMatch(/Face value at risk: [\d.]+ ETH \(\d+ wei\)/);
    const redeemed = TicketListResponseSchema.parse(
      json(await run('tickets', 'list', '--state', 'redeemed', '-o', 'json')),
    );
    expect(redeemed.tickets.filter((ticket) => ticket.state !== 'redeemed')).toEqual([]);
    expect((await run('tickets', 'list', '--state', 'redeemed', '-o', 'yaml')).stdout).toMatch(/^tickets:/);
  });

  it('never prints the token it sends', async () => {
    const token = readFileSync(stack.tokenFile('admin'), 'utf8');
    const outputs = await Promise.all([
      run('status'),
      run('config', 'view'),
      run('runners', 'list', '-o', 'yaml'),
      run('runners', 'list', '--server', `adapter=http://127.0.0.1:${stack.ports.ADAPTER_PORT}/nope/`),
    ]);
    for (const result of outputs) expect(`${result.stdout}${result.stderr}`).not.toContain(token);
    expect(outputs[1]?.stdout).toContain(`${cli.dir}/admin.token`);
  });

  it('says clearly when a service cannot be reached, and exits 1', async () => {
    const port = await findFreePort();
    const result = await run('runners', 'list', '--server', `adapter=http://127.0.0.1:${port}`);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot reach adapter at http://127.0.0.1:${port}: connection refused (is it running? set its URL ` +
        'with --server adapter=URL, SANDBOXCTL_ADAPTER_URL or a context in the config file)\n',
    );
    const status = await run('status', '--server', `redemption-handoff=http://127.0.0.1:${port}`);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^redemption-handoff\s+no\s+-\s+unreachable/m);
  });

  it('runs as `npx sandboxctl` does (bin/sandboxctl.mjs), with the same output and exit codes', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'sandboxctl.mjs');
    const env = { ...cli.env, PATH: process.env.PATH ?? '' };
    const ok = spawnSync(process.execPath, [bin, 'runners', 'list', '-o', 'json'], { env, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(RunnersResponseSchema.parse(JSON.parse(ok.stdout)).runners).toBeInstanceOf(Array);
    const usage = spawnSync(process.execPath, [bin, 'runners', 'list', '--bogus'], { env, encoding: 'utf8' });
    expect([usage.status, usage.stderr]).toEqual([
      2,
      expect.stringContaining("error: unknown option '--bogus'"),
    ]);
  });

  it('exits 2 on usage errors', async () => {
    expect((await run('runners', 'list', '--state', 'sleepy')).code).toBe(2);
    expect((await run('apps', 'apply')).code).toBe(2);
    expect((await run('--context', 'nope', 'runners', 'list')).code).toBe(2);
    expect((await run('frobnicate')).code).toBe(2);
  });
});

describe('authentication', () => {
  const adapterUrl = () => `http://127.0.0.1:${stack.ports.ADAPTER_PORT}`;
  // No config file: only the flags, the variables and the embedded stack's token (when given) count.
  const bare = () => ({ SANDBOXCTL_CONFIG: `${cli.dir}/absent.yaml` });

  it('without a token, prints the 401 and says that no token was sent', async () => {
    const result = await runWith(['runners', 'list', '--server', `adapter=${adapterUrl()}`], { env: bare() });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: adapter refused (401 unauthenticated): a read or admin token is required ' +
        '(Authorization: Bearer <token>)\n  hint: no token was sent: set tokenFile in the context of the ' +
        'config file, SANDBOXCTL_TOKEN_FILE, or SANDBOXCTL_ADAPTER_TOKEN_FILE (`npm start` writes ' +
        '.data/secrets/admin-token)\n',
    );
  });

  it('names the token file a service does not accept', async () => {
    const wrong = cli.file('wrong.token', 'not-a-token-of-this-stack-0123456789\n');
    const env = { ...bare(), SANDBOXCTL_TOKEN_FILE: wrong };
    const result = await runWith(['runners', 'list', '--server', `adapter=${adapterUrl()}`], { env });
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toContain(
      `hint: sent the token of ${wrong} (SANDBOXCTL_TOKEN_FILE), which adapter does not accept`,
    );
  });

  it("uses the embedded stack's admin token when nothing is configured, and the read token reads", async () => {
    const flags = ['--server', `adapter=${adapterUrl()}`, '-o', 'json'];
    const defaulted = await runWith(['runners', 'list', ...flags], {
      env: bare(),
      stackTokenFile: stack.tokenFile('admin'),
    });
    expect(defaulted.code).toBe(0);
    expect(RunnersResponseSchema.parse(JSON.parse(defaulted.stdout)).runners).toBeInstanceOf(Array);
    const env = { ...bare(), SANDBOXCTL_ADAPTER_TOKEN_FILE: stack.tokenFile('read') };
    expect((await runWith(['runners', 'list', ...flags], { env })).code).toBe(0);
  });
});

describeAsRoot('apps on instance-manager', () => {
  const imUrl = () => `http://127.0.0.1:${stack.ports.INSTANCE_MANAGER_PORT}`;

  it("keeps the client's contracts in step with instance-manager's OpenAPI document", async () => {
    const document = (await (
      await fetch(`${imUrl()}/v1/openapi.json`, { headers: admin() })
    ).json()) as Parameters<typeof compareWithOpenApi>[1];
    expect(compareWithOpenApi(Object.values(instanceManagerRoutes), document)).toEqual([]);
    const altered = { ...instanceManagerRoutes.getApp, response: AppListSchema };
    expect(compareWithOpenApi([altered], document)).toContain('GET /v1/apps/{app}: 200 response differs');
  });

  it('refuses a bad manifest with line numbers and applies none of its documents', async () => {
    const good = exampleManifest(APP, image, 1);
    const bad = exampleManifest('ctl-bad', image, 1).replace('port: 8080', 'port: 70000');
    const file = cli.file('bad.yaml', `${good}---\n${bad}`);
    const result = await run('apps', 'apply', '-f', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file} is invalid; nothing was applied:`);
    expect(result.stderr).toContain(`${file}:18:9: spec.port: Too big: expected number to be <=65535`);
    const names = AppListSchema.parse(json(await run('apps', 'list', '-o', 'json'))).apps.map(
      (app) => app.name,
    );
    expect(names.filter((name) => name === APP || name === 'ctl-bad')).toEqual([]);
  });

  it('--dry-run validates and says what would change, without applying', async () => {
    const result = await runWith(['apps', 'apply', '-f', '-', '--dry-run'], {
      env: cli.env,
      stdin: exampleManifest(APP, image, 1),
    });
    expect([result.code, result.stdout]).toEqual([0, `app/${APP} created (dry run)\n`]);
    expect((await fetch(`${imUrl()}/v1/apps/${APP}`, { headers: admin() })).status).toBe(404);
  });

  it('apply --wait returns once the declared instances are ready and registered with Node', async () => {
    const file = cli.file('echo.yaml', exampleManifest(APP, image, 1));
    const result = await run('apps', 'apply', '-f', file, '--wait', '--timeout', '3m');
    expect(result.stderr).toContain(`app/${APP}: ready 1/1, registered 1/1`);
    expect([result.code, result.stdout]).toEqual([0, `app/${APP} created\n`]);
    const runners = RunnersResponseSchema.parse(
      json(await run('runners', 'list', '--app', APP, '-o', 'json')),
    );
    expect(runners.runners.map((runner) => runner.state)).toEqual(['registered']);
    expect((await run('runners', 'list', '--app', APP)).stdout).toMatch(/^RUNNER\s+APP\s+STATE\s+CAPACITY/);
    expect((await run('apps', 'apply', '-f', file)).stdout).toBe(`app/${APP} unchanged\n`);
    const again = AppListSchema.parse(json(await run('apps', 'apply', '-f', file, '-o', 'json')));
    expect(again.apps.map((app) => app.name)).toEqual([APP]);
  }, 240_000);

  it('list, get and instances list print tables and documents the protocol schemas parse', async () => {
    expect((await run('apps', 'list')).stdout).toMatch(
      new RegExp(`^${APP}\\s+active\\s+single-session\\s+1/1`, 'm'),
    );
    const apps = AppListSchema.parse(json(await run('apps', 'list', '-o', 'json')));
    expect(apps.apps.map((app) => app.name)).toContain(APP);
    const app = AppResourceSchema.parse(json(await run('apps', 'get', APP, '-o', 'json')));
    expect(app.spec.instances).toEqual({ kind: 'single-session', warmPool: 1, max: 2 });
    expect((await run('apps', 'get', APP, '-o', 'yaml')).stdout).toContain(`name: ${APP}\nspec:\n`);
    const instances = InstanceListSchema.parse(
      json(await run('instances', 'list', '--app', APP, '-o', 'json')),
    );
    expect(instances.instances.map((instance) => instance.state)).toContain('ready');
    expect((await run('instances', 'list', '--app', APP, '-o', 'wide')).stdout).toMatch(
      /TEMPLATE\s+READY-FOR/,
    );
  });

  it('diff shows the change a manifest would make to the live spec', async () => {
    const result = await run('apps', 'diff', '-f', cli.file('echo2.yaml', exampleManifest(APP, image, 2)));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('-  warmPool: 1\n');
    expect(result.stdout).toContain('+  warmPool: 2\n');
  });

  it('refuses apply with the read token (403), naming the token sent, and applies nothing', async () => {
    const readToken = stack.tokenFile('read');
    const env = { ...cli.env, SANDBOXCTL_TOKEN_FILE: readToken };
    const file = cli.file('forbidden.yaml', exampleManifest('ctl-forbidden', image, 1));
    const result = await runWith(['apps', 'apply', '-f', file], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: instance-manager refused (403 forbidden): this call changes state and needs the admin token\n' +
        `  hint: sent the token of ${readToken} (SANDBOXCTL_TOKEN_FILE); this call needs the admin token ` +
        '(set tokenFile in the context of the config file, SANDBOXCTL_TOKEN_FILE, or ' +
        'SANDBOXCTL_INSTANCE_MANAGER_TOKEN_FILE)\n',
    );
    expect((await runWith(['apps', 'get', 'ctl-forbidden'], { env })).stderr).toMatch(/404 not_found/);
  });

  it("prints the service's error code and message and exits 1", async () => {
    const result = await run('apps', 'get', 'ctl-missing');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: instance-manager refused \(404 not_found\): /);
  });

  it('apply --wait shows why instances fail and times out with exit 1', async () => {
    const name = 'ctl-missing-image';
    const manifest = exampleManifest(name, 'localhost/sandboxctl-no-such-image:1', 1);
    const result = await run(
      'apps',
      'apply',
      '-f',
      cli.file('missing.yaml', manifest),
      '--wait',
      '--timeout',
      '15s',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /app\/ctl-missing-image: ready 0\/1, registered 0\/1 \(instance \w+ failed: /,
    );
    expect(result.stderr).toMatch(
      /error: timed out after 15s waiting for app\/ctl-missing-image to be ready/,
    );
    expect((await run('apps', 'delete', name, '--wait', '--timeout', '60s')).code).toBe(0);
  }, 120_000);

  it("apply --wait shows Node's refusal of an unpriced app in paid mode", async () => {
    const name = 'ctl-unpriced';
    const manifest = exampleManifest(name, image, 1, '');
    const result = await run(
      'apps',
      'apply',
      '-f',
      cli.file('unpriced.yaml', manifest),
      '--wait',
      '--timeout',
      '20s',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /app\/ctl-unpriced: ready \d\/1, registered 0\/1 \(Node refused instance \w+ \(400\): /,
    );
    expect((await run('apps', 'list', '-o', 'wide')).stdout).toMatch(/^ctl-unpriced\s.*\s400: /m);
    expect((await run('apps', 'delete', name, '--wait', '--timeout', '60s')).code).toBe(0);
  }, 120_000);

  it('delete --wait returns once the app and its instances are gone', async () => {
    const result = await run('apps', 'delete', APP, '--wait', '--timeout', '90s');
    expect([result.code, result.stdout]).toEqual([0, `app/${APP} deleting\napp/${APP} deleted\n`]);
    expect((await fetch(`${imUrl()}/v1/apps/${APP}`, { headers: admin() })).status).toBe(404);
  }, 120_000);
});

describeAsRoot('evaluations on the verifier', () => {
  const verifierUrl = () => `http://127.0.0.1:${stack.ports.VERIFIER_PORT}`;
  let runnerId = '';
  let reportId = '';

  /** The runner of the stack's eval-responder app, once the adapter has registered it with Node. */
  async function responderRunner(): Promise<string> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const body = RunnersResponseSchema.parse(
        json(await run('runners', 'list', '--app', 'eval-responder', '-o', 'json')),
      );
      const registered = body.runners.find((runner) => runner.state === 'registered');
      if (registered) return registered.runnerId;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    throw new Error('the eval-responder runner was not registered in 2 minutes');
  }

  // The verifier really measures a loaded shared machine, so the attempt may fail on its merits (a
  // timeout, say): the command's contract is that it prints the attempt and exits 0 only on a pass.
  it('run --runner --watch evaluates a runner through Node and prints the attempt it made', async () => {
    runnerId = await responderRunner();
    const result = await run('verify', 'run', '--runner', runnerId, '--watch', '--timeout', '4m');
    expect(result.stderr).toMatch(/^evaluation\/\S+ queued$/m);
    const attempt = /^evaluation\/\S+ (pass|fail) \(\w+: [\w-]+\)(?:, report (\S+))?\n$/.exec(result.stdout);
    expect([attempt?.[1], result.code, result.stdout]).toEqual([
      expect.stringMatching(/^(pass|fail)$/),
      attempt?.[1] === 'pass' ? 0 : 1,
      result.stdout,
    ]);
    if (attempt?.[1] === 'fail') expect(result.stderr).toMatch(/^error: evaluation\/\S+ failed: /m);
    reportId = attempt?.[2] ?? '';
  }, 300_000);

  it('targets lists the runner with its current result, as a table and as the service document', async () => {
    const body = TargetListResponseSchema.parse(json(await run('verify', 'targets', '-o', 'json')));
    const target = body.targets.find((candidate) => candidate.runnerId === runnerId);
    expect(target?.app).toBe('eval-responder');
    // Without a report of its own (a run that crashed), the report behind the current result.
    reportId ||= target?.current?.reportId ?? '';
    expect((await run('verify', 'targets')).stdout).toMatch(
      new RegExp(`^RUNNER\\s+APP\\s+RESULT[\\s\\S]*^${runnerId}\\s+eval-responder\\s+`, 'm'),
    );
  });

  it('report --check verifies digest and signature offline and prints the signed report', async () => {
    const checked = await run('verify', 'report', reportId, '--check', '-o', 'json');
    expect(checked.code).toBe(0);
    expect(checked.stderr).toContain(`report/${reportId}: digest and Ed25519 signature verify`);
    const direct = await fetch(`${verifierUrl()}/v1/reports/${reportId}`, { headers: admin() });
    expect(SignedEvaluationReportSchema.parse(json(checked))).toEqual(await direct.json());
    const untrusted = await run('verify', 'report', reportId, '--check', '--trusted-key', 'ab'.repeat(32));
    expect([untrusted.code, untrusted.stdout]).toEqual([1, '']);
    expect(untrusted.stderr).toMatch(/is invalid \(untrusted-key\): key [0-9a-f]{64} is not trusted/);
    expect((await run('verify', 'report', reportId, '--check', '--trusted-key', 'nope')).code).toBe(2);
  });

  it("prints the verifier's 404 and refuses a runner the adapter does not know", async () => {
    const missing = await run('verify', 'report', 'rep-no-such-report');
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: verifier refused \(404 not_found\): /),
    ]);
    const unknown = await run('verify', 'run', '--runner', 'no-such-runner');
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      expect.stringContaining('the adapter has no runner no-such-runner'),
    ]);
  });
});
