// An instance's HTTP server for the specs: `/events` streams one SSE event every `intervalMs` until
// the client or the proxy goes away.
import { createServer, type Server } from 'node:http';
import { boundPort, closeServer } from '@sandbox/service-kit';

export interface SseBackend {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startSseBackend(intervalMs = 100): Promise<SseBackend> {
  const server: Server = createServer((req, res) => {
    if (!(req.url ?? '').includes('events')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let tick = 0;
    const timer = setInterval(() => res.write(`data: ${(tick += 1)}\n\n`), intervalMs);
    res.once('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = boundPort(server);
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () => {
      server.closeAllConnections();
      return closeServer(server);
    },
  };
}

/** A client's SSE stream through Node: counts events and records when (wall clock) it ended. */
export interface SseClient {
  events(): number;
  /** The time the stream ended, or undefined while it flows. */
  endedAt(): number | undefined;
  close(): void;
}

export async function openSse(url: string): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  if (response.status !== 200 || response.body === null) throw new Error(`SSE answered ${response.status}`);
  let events = 0;
  let endedAt: number | undefined;
  const reader = response.body.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        events += decoder.decode(value).split('\n\n').length - 1;
      }
    } catch {
      // Cut.
    }
    endedAt = Date.now();
  })();
  return { events: () => events, endedAt: () => endedAt, close: () => controller.abort() };
}
