import { createServer, type Server } from 'node:http';

/** One answer of a {@link ScriptedServer}, chosen by method and path. */
export type Script = (method: string, path: string, body: string) => { status: number; body: unknown };

/** A test double of a service: answers each request as the test scripts it, and records requests. */
export interface ScriptedServer {
  readonly url: string;
  readonly requests: { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

/** Starts a scripted server on 127.0.0.1 and the given (free) port. */
export async function startScriptedServer(port: number, script: Script): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const entry = { method: req.method ?? '', path: req.url ?? '', body };
      requests.push(entry);
      const answer = script(entry.method, entry.path, body);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
