import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { StackProcess } from '@sandbox/testing';

/**
 * A config file with one context pointing at the stack, in a temporary folder (never the real home):
 * the context's token is a copy of the stack's admin token (with the newline editors add).
 */
export function cliEnvironment(stack: StackProcess) {
  const dir = mkdtempSync(join(tmpdir(), 'sandboxctl-config-'));
  writeFileSync(join(dir, 'admin.token'), `${readFileSync(stack.tokenFile('admin'), 'utf8')}\n`, {
    mode: 0o600,
  });
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const config = {
    currentContext: 'test',
    contexts: {
      test: {
        tokenFile: 'admin.token',
        services: {
          'instance-manager': { url: url(stack.ports.INSTANCE_MANAGER_PORT) },
          adapter: { url: url(stack.ports.ADAPTER_PORT) },
          'redemption-handoff': { url: url(stack.ports.REDEMPTION_HANDOFF_PORT) },
          'drain-controller': { url: url(stack.ports.DRAIN_CONTROLLER_PORT) },
          verifier: { url: url(stack.ports.VERIFIER_PORT) },
        },
      },
    },
  };
  writeFileSync(join(dir, 'config.yaml'), stringify(config));
  return {
    dir,
    env: { SANDBOXCTL_CONFIG: join(dir, 'config.yaml'), HOME: join(dir, 'home') },
    file: (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A manifest of one example-app document (priced, as a paid Node requires, unless `price` is ''). */
export function exampleManifest(name: string, image: string, warmPool: number, price = '0.01'): string {
  return `# the example app, single-session
kind: App
name: ${name}
spec:
  image: ${image}
  port: 8080
  mode: persistent
  healthCheck: { type: http, path: /healthz }
  resources: { cpu: 500m, memory: 256Mi }
  instances: { kind: single-session, warmPool: ${warmPool}, max: 2 }
${price ? `  price: { usd: "${price}", unit: hour }\n` : ''}`;
}
