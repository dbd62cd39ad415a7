// The stack's evaluation target: builds the eval-responder image and declares it to instance-manager as
// an ordinary app (`PUT /v1/apps/eval-responder`), then waits for the stack to stop it. The app stays
// declared across restarts, as any app does.
//   node --import tsx tools/stack/src/declare-eval-responder.ts <instance-manager URL> <admin token file> [usd per hour]
import { readFile } from 'node:fs/promises';
import type { AppSpecInput } from '@sandbox/protocol';
import { ensureEvalResponderImage, EVAL_RESPONDER } from '@sandbox/sandbox-local';

/** The name the verifier's schedule evaluates. */
export const EVAL_RESPONDER_APP = 'eval-responder';

function spec(image: string, usdPerHour: string | undefined): AppSpecInput {
  return {
    image,
    port: EVAL_RESPONDER.port,
    healthCheck: { type: 'http', path: '/healthz' },
    // One core, so the hash rate measures one core of the machine.
    resources: { cpu: '1', memory: '256Mi' },
    mode: 'persistent',
    instances: { kind: 'reusable', capacity: 2, minReplicas: 1, maxReplicas: 1 },
    ...(usdPerHour === undefined ? {} : { price: { usd: usdPerHour, unit: 'hour' as const } }),
  };
}

async function main([managerUrl, tokenFile, usdPerHour]: string[]): Promise<void> {
  if (!managerUrl || !tokenFile)
    throw new Error('usage: declare-eval-responder <instance-manager URL> <admin token file> [usd per hour]');
  const token = (await readFile(tokenFile, 'utf8')).trim();
  const image = await ensureEvalResponderImage();
  const reply = await fetch(`${managerUrl}/v1/apps/${EVAL_RESPONDER_APP}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(spec(image, usdPerHour)),
  });
  if (reply.status >= 300)
    throw new Error(`instance-manager answered ${reply.status}: ${await reply.text()}`);
  process.stdout.write(`${JSON.stringify({ msg: 'eval-responder declared', image })}\n`);
}

const keepAlive = setInterval(() => undefined, 60_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
main(process.argv.slice(2)).catch((error: unknown) => {
  clearInterval(keepAlive);
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
