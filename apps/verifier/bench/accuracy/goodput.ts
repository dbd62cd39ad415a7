/**
 * What a rate-limited link leaves for TCP payload. tbf and netem on a veth count whole frames
 * (`skb->len`: the Ethernet header and everything inside it), while the verifier counts payload bytes
 * at the receiver. A full-size segment of an `mtu`-byte link carries `mtu - 20 (IPv4) - 20 (TCP) - 12
 * (the timestamp option Linux and gVisor negotiate)` payload bytes in `mtu + 14` frame bytes.
 * HTTP framing is left out: the download has a Content-Length; the upload's chunk headers cost
 * ~10 bytes per 64 KiB chunk (< 0.02 %).
 */
const FRAME_OVERHEAD_BYTES = { ethernet: 14, ipv4: 20, tcp: 20, tcpTimestamps: 12 } as const;

export interface ExpectedGoodput {
  /** Payload bytes per full-size segment (the MSS in use). */
  payloadBytes: number;
  /** Bytes the shaper counts for that segment. */
  frameBytes: number;
  /** payloadBytes / frameBytes. */
  ratio: number;
  goodputMbit: number;
}

export function expectedGoodput(rateMbit: number, mtu: number): ExpectedGoodput {
  const { ethernet, ipv4, tcp, tcpTimestamps } = FRAME_OVERHEAD_BYTES;
  const payloadBytes = mtu - ipv4 - tcp - tcpTimestamps;
  const frameBytes = mtu + ethernet;
  const ratio = payloadBytes / frameBytes;
  return { payloadBytes, frameBytes, ratio, goodputMbit: rateMbit * ratio };
}

/** Signed relative error in percent. */
export const errorPercent = (measured: number, truth: number) => ((measured - truth) / truth) * 100;
