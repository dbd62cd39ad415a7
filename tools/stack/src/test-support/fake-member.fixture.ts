import { join } from 'node:path';
import { findFreePort } from '@sandbox/testing';
import { createStackConsole, type StackConsole } from '../console';
import type { ProcessSpec } from '../managed-process';
import { httpReady } from '../readiness';

/**
 * A member for supervisor specs: a plain Node HTTP server on a free port that answers its pid, exits 1
 * on `GET /crash`, and on SIGTERM writes its name to `<dir>/stops` before exiting 0.
 */
export async function fakeMember(name: string, dir: string): Promise<ProcessSpec & { url: string }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const script = `
    const { appendFileSync } = require('node:fs');
    const server = require('node:http').createServer((req, res) => {
      if (req.url === '/crash') process.exit(1);
      res.end(String(process.pid));
    });
    server.listen(${port}, '127.0.0.1');
    process.on('SIGTERM', () => { appendFileSync(${JSON.stringify(join(dir, 'stops'))}, ${JSON.stringify(name)} + '\\n'); process.exit(0); });
  `;
  return {
    name,
    command: process.execPath,
    args: ['-e', script],
    env: {},
    cwd: dir,
    isReady: () => httpReady(`${url}/readyz`),
    readyTimeoutMs: 15_000,
    banner: url,
    url,
  };
}

/** A member that exits at once with `code`. */
export function failingMember(name: string, dir: string, code = 2): ProcessSpec {
  return {
    name,
    command: process.execPath,
    args: ['-e', `process.exit(${code})`],
    env: {},
    cwd: dir,
    isReady: async () => false,
  };
}

/** The console the specs read: plain lines, kept in memory. */
export function memoryConsole(): StackConsole & { text(): string } {
  let text = '';
  const out = createStackConsole({ write: (chunk) => void (text += chunk), pretty: false });
  return { ...out, text: () => text };
}
