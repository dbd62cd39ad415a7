/** WebSocket opcodes (RFC 6455 section 5.2). */
export const Opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** Close codes this app sends. */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  invalidData: 1007,
  tooBig: 1009,
} as const;

/** One decoded frame, payload unmasked. */
export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** The peer broke the protocol; the connection closes with `code`. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Encodes one unmasked server frame with FIN set. */
export function encodeFrame(opcode: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x80 | opcode, length]);
  } else if (length < 65_536) {
    header = Buffer.alloc(4);
    header.writeUInt16BE(length, 2);
    header[1] = 126;
  } else {
    header = Buffer.alloc(10);
    header.writeBigUInt64BE(BigInt(length), 2);
    header[1] = 127;
  }
  header[0] = 0x80 | opcode;
  return Buffer.concat([header, payload]);
}

/** Encodes a close frame with a status code. */
export function encodeClose(code: number): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code, 0);
  return encodeFrame(Opcode.close, payload);
}

function readLength(buffer: Buffer, marker: number): { length: number; offset: number } | undefined {
  if (marker < 126) return { length: marker, offset: 2 };
  if (marker === 126) return buffer.length < 4 ? undefined : { length: buffer.readUInt16BE(2), offset: 4 };
  if (buffer.length < 10) return undefined;
  const big = buffer.readBigUInt64BE(2);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new FrameError(CloseCode.tooBig, 'frame too large');
  return { length: Number(big), offset: 10 };
}

/**
 * Splits a byte stream from a client into frames. Client frames must be masked and carry no reserved
 * bits; control frames must be final and short; no frame may exceed `maxPayload`.
 */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly maxPayload: number) {}

  /** Adds bytes and returns every frame now complete. */
  push(chunk: Buffer): Frame[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: Frame[] = [];
    for (let frame = this.next(); frame; frame = this.next()) frames.push(frame);
    return frames;
  }

  private next(): Frame | undefined {
    const buffer = this.buffer;
    if (buffer.length < 2) return undefined;
    const first = buffer[0] ?? 0;
    const second = buffer[1] ?? 0;
    if ((first & 0x70) !== 0) throw new FrameError(CloseCode.protocolError, 'reserved bits set');
    if ((second & 0x80) === 0) throw new FrameError(CloseCode.protocolError, 'client frame not masked');
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    const header = readLength(buffer, second & 0x7f);
    if (!header) return undefined;
    if (opcode >= 8 && (!fin || header.length > 125))
      throw new FrameError(CloseCode.protocolError, 'bad control frame');
    if (header.length > this.maxPayload) throw new FrameError(CloseCode.tooBig, 'frame too large');
    const start = header.offset + 4;
    if (buffer.length < start + header.length) return undefined;
    const mask = buffer.subarray(header.offset, start);
    const payload = Buffer.from(buffer.subarray(start, start + header.length));
    for (let index = 0; index < payload.length; index += 1)
      payload[index] = (payload[index] ?? 0) ^ (mask[index % 4] ?? 0);
    this.buffer = buffer.subarray(start + header.length);
    return { fin, opcode, payload };
  }
}
