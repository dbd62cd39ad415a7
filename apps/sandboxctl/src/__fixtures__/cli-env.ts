import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { StackProcess } from './stack-process';

/** A token the services are sent (they ignore it until their auth lands) and that must never be printed. */
export const TOKEN_CANARY = 'sandboxctl-canary-2b9e71c4d05f';

/** A config file with one context pointing at the stack, in a temporary folder (never the real home). */
export function cliEnvironment(stack: StackProcess) {
  const dir = mkdtempSync(join(tmpdir(), 'sandboxctl-config-'));
  const tokenFile = join(dir, 'admin.token');
  writeFileSync(tokenFile, `${TOKEN_CANARY}\n`, { mode: 0o600 });
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const config = {
    currentContext: 'test',
    contexts: {
      test: {
        services: {
          'instance-manager': { url: url(stack.ports.INSTANCE_MANAGER_PORT), tokenFile: 'admin.token' },
          adapter: { url: url(stack.ports.ADAPTER_PORT), tokenFile: 'admin.token' },
          'redemption-handoff': { url: url(stack.ports.REDEMPTION_HANDOFF_PORT), tokenFile: 'admin.token' },
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
