import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '../http/respond';

/** A discovery runner as the simulator's `/discovery` writes it. */
type DiscoveryRunnerJson = Record<string, unknown> & { url?: unknown; app?: unknown; gpu?: unknown };

/** What signer discovery reads: this Node's own discovery answer (the signer's one source). */
export interface SignerDiscoverySource {
  address: string;
  runners(): DiscoveryRunnerJson[];
  now(): number;
}

function gpuName(runner: DiscoveryRunnerJson): string {
  const gpu = runner.gpu as { name?: unknown } | undefined;
  return typeof gpu?.name === 'string' ? gpu.name.trim() : '';
}

/**
 * `GET /discover-orchestrators?app=&gpu=` as Node's remote signer serves it (`Service.discover`,
 * signer/service.go@545d43d5, with the answers of signer/discovery_test.go@786d5819): runners
 * without url or app are dropped; every `app` value given is an alternative, and so is every `gpu`
 * (matched against the trimmed GPU name); each orchestrator with runners left is listed as
 * `{address, score: 1, runners, last_seen}`, runners as advertised. A source that answered with
 * nothing matching gives `200 []`. The simulated signer's one source is the simulator itself, so the
 * 503s of an unconfigured or unreachable source cannot occur.
 */
export function discoverOrchestrators(
  source: SignerDiscoverySource,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const query = new URL(req.url ?? '/', 'http://signer').searchParams;
  const apps = query.getAll('app');
  const gpus = query.getAll('gpu');
  const runners = source.runners().filter((runner) => {
    if (typeof runner.url !== 'string' || runner.url === '') return false;
    if (typeof runner.app !== 'string' || runner.app === '') return false;
    if (apps.length > 0 && !apps.includes(runner.app)) return false;
    return gpus.length === 0 || gpus.includes(gpuName(runner));
  });
  const lastSeen = new Date(source.now()).toISOString();
  writeJson(
    res,
    200,
    runners.length === 0 ? [] : [{ address: source.address, score: 1, runners, last_seen: lastSeen }],
  );
}
