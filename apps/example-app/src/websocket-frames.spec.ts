import { describe, expect, it } from '@jest/globals';
import { CloseCode, encodeFrame, FrameDecoder, FrameError, Opcode } from './websocket-frames';

/** A masked client frame, as a browser would send it. */
function clientFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const unmasked = encodeFrame(opcode, payload);
  const headerLength = unmasked.length - payload.length;
  const header = Buffer.from(unmasked.subarray(0, headerLength));
  header[0] = (fin ? 0x80 : 0) | opcode;
  header[1] = (header[1] ?? 0) | 0x80;
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] ?? 0)));
  return Buffer.concat([header, mask, masked]);
}

describe('websocket frames', () => {
  it('encodes the three length forms', () => {
    expect(encodeFrame(Opcode.text, Buffer.alloc(125)).subarray(0, 2)).toEqual(Buffer.from([0x81, 125]));
    expect(encodeFrame(Opcode.binary, Buffer.alloc(300)).subarray(0, 4)).toEqual(
      Buffer.from([0x82, 126, 1, 44]),
    );
    const big = encodeFrame(Opcode.binary, Buffer.alloc(70_000));
    expect(big[1]).toBe(127);
    expect(big.readBigUInt64BE(2)).toBe(70_000n);
  });

  it('decodes masked frames split across chunks', () => {
    const decoder = new FrameDecoder(1 << 20);
    const bytes = Buffer.concat([
      clientFrame(Opcode.text, Buffer.from('hello')),
      clientFrame(Opcode.binary, Buffer.alloc(70_000, 7)),
    ]);
    const frames = [
      ...decoder.push(bytes.subarray(0, 3)),
      ...decoder.push(bytes.subarray(3, 5000)),
      ...decoder.push(bytes.subarray(5000)),
    ];
    expect(frames.map((frame) => [frame.opcode, frame.payload.length])).toEqual([
      [Opcode.text, 5],
      [Opcode.binary, 70_000],
    ]);
    expect(frames[0]?.payload.toString()).toBe('hello');
    expect(frames[1]?.payload.every((byte) => byte === 7)).toBe(true);
  });

  it('rejects unmasked, oversized and fragmented control frames', () => {
    const unmasked = encodeFrame(Opcode.text, Buffer.from('x'));
    expect(() => new FrameDecoder(100).push(unmasked)).toThrow(FrameError);
    let tooBig: unknown;
    try {
      new FrameDecoder(10).push(clientFrame(Opcode.binary, Buffer.alloc(11)));
    } catch (error) {
      tooBig = error;
    }
    expect(tooBig).toBeInstanceOf(FrameError);
    expect((tooBig as FrameError).code).toBe(CloseCode.tooBig);
    expect(() => new FrameDecoder(100).push(clientFrame(Opcode.ping, Buffer.alloc(1), false))).toThrow(
      'bad control frame',
    );
  });
});
