import { LocalPublisher, TrickleStream } from './trickle-stream';

/** The trickle channels Node serves under `/ai/trickle/` (in memory, no autocreate). */
export class TrickleServer {
  readonly streams = new Map<string, TrickleStream>();

  /** Creates a channel (or returns the existing one) and a local publisher for it. */
  create(name: string, mimeType: string): LocalPublisher {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = new TrickleStream(name, mimeType);
      this.streams.set(name, stream);
    }
    return new LocalPublisher(stream);
  }

  get(name: string): TrickleStream | undefined {
    return this.streams.get(name);
  }

  /** Closes and forgets a channel; waiting subscribers are answered with the closed header. */
  close(name: string): boolean {
    const stream = this.streams.get(name);
    if (!stream) return false;
    stream.close();
    this.streams.delete(name);
    return true;
  }

  closeAll(): void {
    for (const name of [...this.streams.keys()]) this.close(name);
  }
}
