import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/** Largest message echoed; bigger ones close the connection with 1009. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Close code sent to open WebSockets when the app shuts down (RFC 6455 "going away"). */
export const GOING_AWAY = 1001;

/**
 * The WebSocket echo at `/ws`: every message comes back with its type. `ws` does the handshake,
 * framing, pings, close handshake, UTF-8 checks (1007) and the size limit (1009).
 */
export interface EchoSockets {
  /** Completes the handshake on an upgraded request (or answers 400) and starts echoing. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every open session with `code` (for shutdown). */
  closeAll(code: number): void;
}

function echo(socket: WebSocket): void {
  socket.on('message', (data: RawData, isBinary: boolean) => socket.send(data, { binary: isBinary }));
  // A peer's protocol error has already closed the socket with the right code; nothing to log.
  socket.on('error', () => socket.terminate());
}

/** Creates the echo endpoint; it shares the app's HTTP server through `accept`. */
export function createEchoSockets(): EchoSockets {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: true });
  return {
    accept(req, socket, head) {
      socket.on('error', () => socket.destroy());
      server.handleUpgrade(req, socket, head, (client) => echo(client));
    },
    closeAll(code) {
      for (const client of server.clients) client.close(code);
    },
  };
}
