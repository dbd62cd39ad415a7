import { connect, type Socket } from 'node:net';
import { HttpProtocolError, ResponseParser, type ParsedResponse } from './response-parser';
import type { PlainTarget } from './request-head';

/** The end of one exchange on a connection: its response, or why there is none. */
export type ExchangeOutcome = { response: ParsedResponse } | { error: Error };

/** A connection that closed (or reset) before its response began, as node:http reports it. */
function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * One keep-alive TCP connection to an origin, carrying one exchange at a time. Reads land in a
 * buffer shared by every connection of the transport (`onread`): no stream machinery and no chunk
 * objects per read, which is most of what node:http allocates for a small answer.
 */
export class PlainConnection {
  readonly socket: Socket;
  private parser: ResponseParser | undefined;
  private settle: ((outcome: ExchangeOutcome) => void) | undefined;
  private failure: Error | undefined;
  private closed = false;

  constructor(
    readonly target: PlainTarget,
    readBuffer: Buffer,
    private readonly onClosed: (connection: PlainConnection) => void,
  ) {
    this.socket = connect({
      host: target.host,
      port: target.port,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 1_000,
      onread: { buffer: readBuffer, callback: (bytes) => this.onBytes(readBuffer.subarray(0, bytes)) },
    });
    // Errors are reported by the close that follows them.
    this.socket.on('error', (error) => void (this.failure ??= error));
    this.socket.on('close', () => this.onClose());
  }

  /** Open, and not carrying an exchange: it may take the next request. */
  get usable(): boolean {
    return !this.closed && !this.socket.destroyed && this.parser === undefined;
  }

  /** Sends a request; `settle` is called once, with the response or the failure. */
  send(
    head: string,
    body: { text: string; bytes: number } | undefined,
    settle: (outcome: ExchangeOutcome) => void,
  ): void {
    this.parser = new ResponseParser();
    this.settle = settle;
    if (body === undefined) this.socket.write(head, 'latin1');
    // One write when the body is ASCII (UTF-8 and Latin-1 agree), as heartbeat bodies are.
    else if (body.bytes === body.text.length) this.socket.write(head + body.text, 'latin1');
    else {
      this.socket.cork();
      this.socket.write(head, 'latin1');
      this.socket.write(body.text, 'utf8');
      this.socket.uncork();
    }
  }

  /** Drops the connection; an exchange in progress fails with `reason`. */
  destroy(reason?: Error): void {
    if (reason !== undefined) this.finish({ error: reason });
    this.socket.destroy();
  }

  private onBytes(bytes: Buffer): boolean {
    const parser = this.parser;
    if (parser === undefined) {
      // Bytes nobody asked for: the connection cannot be trusted for the next request.
      this.socket.destroy();
      return false;
    }
    try {
      const response = parser.feed(bytes);
      if (response !== undefined) {
        if (!response.reusable) this.socket.destroy();
        this.finish({ response });
      }
    } catch (error) {
      this.destroy(error instanceof Error ? error : new HttpProtocolError(String(error)));
    }
    return true;
  }

  private onClose(): void {
    this.closed = true;
    const parser = this.parser;
    if (parser !== undefined) {
      if (this.failure !== undefined) this.finish({ error: this.failure });
      else {
        try {
          this.finish({ response: parser.finish() });
        } catch (error) {
          this.finish({ error: parser.started ? (error as Error) : hangUp() });
        }
      }
    }
    this.onClosed(this);
  }

  private finish(outcome: ExchangeOutcome): void {
    const settle = this.settle;
    this.parser = undefined;
    this.settle = undefined;
    settle?.(outcome);
  }
}
