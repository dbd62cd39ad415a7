import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Frame } from './websocket-frames';
import { CloseCode, encodeClose, encodeFrame, FrameDecoder, FrameError, Opcode } from './websocket-frames';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Largest message echoed; bigger ones close the connection with 1009. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The `Sec-WebSocket-Accept` value for a client key (RFC 6455 section 4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1').update(`${key}${HANDSHAKE_GUID}`).digest('base64');
}

function reject(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

class EchoSession {
  private readonly decoder = new FrameDecoder(MAX_MESSAGE_BYTES);
  private parts: Buffer[] = [];
  private messageOpcode = 0;
  private closed = false;

  constructor(private readonly socket: Duplex) {}

  receive(chunk: Buffer): void {
    try {
      for (const frame of this.decoder.push(chunk)) this.handle(frame);
    } catch (error) {
      this.close(error instanceof FrameError ? error.code : CloseCode.protocolError);
    }
  }

  close(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.end(encodeClose(code));
  }

  private handle(frame: Frame): void {
    if (this.closed) return;
    if (frame.opcode === Opcode.ping) this.socket.write(encodeFrame(Opcode.pong, frame.payload));
    else if (frame.opcode === Opcode.close)
      this.close(frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : CloseCode.normal);
    else if (frame.opcode === Opcode.pong) return;
    else this.collect(frame);
  }

  private collect(frame: Frame): void {
    const starts = frame.opcode === Opcode.text || frame.opcode === Opcode.binary;
    if (starts === (this.messageOpcode !== 0) || (!starts && frame.opcode !== Opcode.continuation)) {
      throw new FrameError(CloseCode.protocolError, 'unexpected frame');
    }
    if (starts) this.messageOpcode = frame.opcode;
    this.parts.push(frame.payload);
    const message = Buffer.concat(this.parts);
    if (message.length > MAX_MESSAGE_BYTES) throw new FrameError(CloseCode.tooBig, 'message too large');
    if (!frame.fin) return;
    if (this.messageOpcode === Opcode.text && !isUtf8(message))
      throw new FrameError(CloseCode.invalidData, 'invalid UTF-8');
    this.socket.write(encodeFrame(this.messageOpcode, message));
    this.parts = [];
    this.messageOpcode = 0;
  }
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Completes the WebSocket handshake on an upgraded request and echoes every message back with its
 * type. Answers pings and close frames; returns a function that closes the session (for shutdown).
 */
export function acceptEchoSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): ((code: number) => void) | undefined {
  const key = req.headers['sec-websocket-key'];
  const upgrade = req.headers.upgrade?.toLowerCase();
  if (
    req.method !== 'GET' ||
    upgrade !== 'websocket' ||
    typeof key !== 'string' ||
    req.headers['sec-websocket-version'] !== '13'
  ) {
    reject(socket, '400 Bad Request');
    return undefined;
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
  );
  const session = new EchoSession(socket);
  socket.on('data', (chunk: Buffer) => session.receive(chunk));
  socket.on('error', () => socket.destroy());
  if (head.length > 0) session.receive(head);
  return (code) => session.close(code);
}
