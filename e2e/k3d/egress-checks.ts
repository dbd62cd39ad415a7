// The egress matrix from inside app pods, as the cluster's policy engine enforces it.
import { check, type Log } from './check';
import { clusterFacts } from './cluster-facts';
import { egressMatrix, matrixViolations, type EgressRow, type ProbeOutcome } from './egress-matrix';
import { APPS_NAMESPACE } from './install';
import type { Kubectl } from './kubectl';
import { connectFromPod, resolveFromPod } from './pod-probes';
import type { ClusterProvider } from './provider';
import { readyPod, type AppPod } from './system-flow';

async function probeMatrix(kubectl: Kubectl, pod: AppPod, rows: EgressRow[]): Promise<ProbeOutcome[]> {
  const outcomes: ProbeOutcome[] = [];
  for (const row of rows) outcomes.push(await connectFromPod(kubectl, APPS_NAMESPACE, pod.name, row));
  return outcomes;
}

/** The `none` matrix from `pod` (its "other app" is `other`), checked under `name`. */
export async function checkNoneMatrix(
  provider: ClusterProvider,
  pod: AppPod,
  other: AppPod,
  name: string,
  log: Log,
): Promise<void> {
  const facts = await clusterFacts(provider.kubectl, { ip: other.ip, port: 8080 }, provider.internet);
  const rows = egressMatrix(facts, 'none');
  check(
    log,
    `${name} (${rows.length} destinations)`,
    matrixViolations(rows, await probeMatrix(provider.kubectl, pod, rows)),
  );
}

/** Both matrices: `echo` (egress none) and `echoNet` (egress internet), each probing the other. */
export async function egressChecks(provider: ClusterProvider, log: Log) {
  const pods = {
    echo: await readyPod(provider.kubectl, 'echo'),
    echoNet: await readyPod(provider.kubectl, 'echo-net'),
  };
  await checkNoneMatrix(provider, pods.echo, pods.echoNet, 'egress: none', log);
  const facts = await clusterFacts(provider.kubectl, { ip: pods.echo.ip, port: 8080 }, provider.internet);
  const internet = egressMatrix(facts, 'internet');
  check(
    log,
    `egress: internet (${internet.length} destinations)`,
    matrixViolations(internet, await probeMatrix(provider.kubectl, pods.echoNet, internet)),
  );
  await dnsChecks(provider, pods, log);
}

/**
 * Names: an `internet` app resolves a public name through the public resolver it was given and
 * connects to the answer; a `none` app resolves nothing (its pod keeps the cluster's DNS, which its
 * policy refuses like every other address).
 */
async function dnsChecks(provider: ClusterProvider, pods: { echo: AppPod; echoNet: AppPod }, log: Log) {
  const { name, host, port, resolver } = provider.internet;
  const resolved = await resolveFromPod(provider.kubectl, APPS_NAMESPACE, pods.echoNet.name, name);
  const problems: string[] = [];
  if (resolved.result !== 'resolved' || !resolved.detail.includes(host))
    problems.push(`${name} through ${resolver}: expected ${host}, got ${JSON.stringify(resolved)}`);
  else {
    // The policy engine rewrites its rules on a timer; a refusal seen once while the matrix above just
    // connected to the same address is tried again twice (each attempt is reported if none connects).
    const attempts: ProbeOutcome[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      const reached = await connectFromPod(provider.kubectl, APPS_NAMESPACE, pods.echoNet.name, {
        host,
        port,
      });
      attempts.push(reached);
      if (reached.result === 'connected') break;
    }
    if (attempts.every((reached) => reached.result !== 'connected'))
      problems.push(`${name} resolved, but ${host}:${port} gave ${JSON.stringify(attempts)}`);
    else if (attempts.length > 1)
      log(`egress: ${host}:${port} connected after ${JSON.stringify(attempts.slice(0, -1))}`);
  }
  check(log, `egress: internet resolves ${name} through ${resolver} and connects to it`, problems);
  const refused = await resolveFromPod(provider.kubectl, APPS_NAMESPACE, pods.echo.name, name);
  check(
    log,
    `egress: none resolves nothing (${refused.result === 'error' ? refused.detail : refused.result})`,
    refused.result === 'resolved' ? [`${name} resolved to ${refused.detail.join(', ')}`] : [],
  );
}
