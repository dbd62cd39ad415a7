import { request } from 'node:http';
import { connect } from 'node:net';
import type { ReadinessPlan } from './pod-plan';

/**
 * One readiness probe as a kubelet runs it: an HTTP GET that succeeds on 200-399, or a TCP connect,
 * against the pod IP, within the probe's timeout.
 */
export function probeOnce(address: string, plan: ReadinessPlan): Promise<boolean> {
  return new Promise((resolve) => {
    if (plan.check.type === 'tcp') {
      const socket = connect({ host: address, port: plan.port, timeout: plan.timeoutMs });
      const done = (ok: boolean): void => {
        socket.destroy();
        resolve(ok);
      };
      socket.on('connect', () => done(true));
      socket.on('timeout', () => done(false));
      socket.on('error', () => done(false));
      return;
    }
    const req = request({
      host: address,
      port: plan.port,
      path: plan.check.path,
      method: 'GET',
      agent: false,
      timeout: plan.timeoutMs,
      headers: { 'user-agent': 'kube-probe/kube-harness' },
    });
    req.on('response', (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      resolve(status >= 200 && status < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Counts consecutive results and decides readiness with the probe's thresholds. */
export function readinessTracker(plan: Pick<ReadinessPlan, 'successThreshold' | 'failureThreshold'>) {
  let ready = false;
  let successes = 0;
  let failures = 0;
  return {
    /** Records one result; returns the readiness after it. */
    record(ok: boolean): boolean {
      successes = ok ? successes + 1 : 0;
      failures = ok ? 0 : failures + 1;
      if (!ready && successes >= plan.successThreshold) ready = true;
      if (ready && failures >= plan.failureThreshold) ready = false;
      return ready;
    },
    get ready(): boolean {
      return ready;
    },
  };
}
