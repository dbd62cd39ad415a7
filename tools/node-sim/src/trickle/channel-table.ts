import type { RegistryEvent } from '../registry/registry-state';
import type { TrickleServer } from './trickle-server';
import type { LocalPublisher } from './trickle-stream';

const O2R_KEEPALIVE = Buffer.from('{"keep":"alive"}');

interface OwnedChannel {
  readonly name: string;
  readonly mimeType: string;
  readonly runnerId: string;
  /** Empty for a runner's O2R channel. */
  readonly sessionId: string;
  readonly publisher: LocalPublisher;
}

/** Go's `time.RFC3339Nano` in UTC: fraction without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.(\d*?)0*Z$/u, (_match, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/**
 * Node's ownership records of trickle channels: one O2R channel per registered runner and the session
 * channels runners create. Registry events are published here and close what they end.
 */
export class ChannelTable {
  readonly channels = new Map<string, OwnedChannel>();
  /** runner id → O2R channel name. */
  readonly o2r = new Map<string, string>();

  constructor(
    private readonly trickle: TrickleServer,
    private readonly now: () => number,
  ) {}

  open(id: string, name: string, mimeType: string, runnerId: string, sessionId: string): void {
    const publisher = this.trickle.create(id, mimeType);
    this.channels.set(id, { name, mimeType, runnerId, sessionId, publisher });
  }

  /** Opens the O2R channel of a newly registered runner under the given 128-bit name. */
  openO2R(runnerId: string, id: string): void {
    this.open(id, 'o2r', 'application/json', runnerId, '');
    this.o2r.set(runnerId, id);
  }

  close(id: string): void {
    if (!this.channels.delete(id)) return;
    this.trickle.close(id);
  }

  /** A DELETE over HTTP also removes Node's ownership record. */
  forget(id: string): void {
    const channel = this.channels.get(id);
    if (!channel) return;
    this.channels.delete(id);
    if (this.o2r.get(channel.runnerId) === id) this.o2r.delete(channel.runnerId);
  }

  /** Node's `emitSessionEvent`. */
  onRegistryEvent(runnerId: string, event: RegistryEvent, sessionId: string): void {
    if (event === 'expired' || event === 'unregistered') {
      for (const [id, channel] of this.channels) if (channel.runnerId === runnerId) this.close(id);
      this.o2r.delete(runnerId);
      return;
    }
    // Go encodes map[string]string with sorted keys.
    const message = JSON.stringify({ event, session: sessionId, timestamp: rfc3339Nano(this.now()) });
    this.publish(this.o2r.get(runnerId), Buffer.from(message));
    if (event === 'released') {
      for (const [id, channel] of this.channels) {
        if (channel.runnerId === runnerId && channel.sessionId === sessionId) this.close(id);
      }
    }
  }

  /** `{"keep":"alive"}` on every O2R channel (Node does this every 10 s). */
  keepAlive(): void {
    for (const id of this.o2r.values()) this.publish(id, O2R_KEEPALIVE);
  }

  private publish(id: string | undefined, data: Buffer): void {
    if (id !== undefined) this.channels.get(id)?.publisher.write(data);
  }

  /** The channels of one session, by channel id. */
  sessionChannels(runnerId: string, sessionId: string): Array<[string, OwnedChannel]> {
    return [...this.channels].filter(
      ([, channel]) => channel.runnerId === runnerId && channel.sessionId === sessionId,
    );
  }
}
