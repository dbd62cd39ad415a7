import type { IncomingHttpHeaders } from 'node:http';
import { errors, type Dispatcher } from 'undici';
import { HttpTimeoutError, type HttpAnswer } from './http-exchange';

/**
 * Reads one undici exchange into an {@link HttpAnswer}: the status, the headers undici parsed and the
 * whole body as text. It settles its promise once: with the answer, undici's error, the deadline's
 * {@link HttpTimeoutError} or the caller's abort reason, and then aborts the exchange in undici (which
 * drops the connection). The deadline and the abort settle it at once, even while undici still
 * connects. Heartbeat answers arrive in one chunk: it is kept as is, not copied into an array.
 * A body declared longer than `maxBodyBytes` fails before any of it is read (undici's
 * `maxResponseSize` fails one that grows past it).
 */
export class AnswerHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private reason: Error | undefined;
  private settled = false;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private first: Buffer | undefined;
  private more: Buffer[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly maxBodyBytes: number;

  constructor(
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: unknown) => void,
    limits: { signal: AbortSignal | undefined; timeoutMs: number | undefined; maxBodyBytes: number },
  ) {
    const { signal, timeoutMs } = limits;
    this.signal = signal;
    this.maxBodyBytes = limits.maxBodyBytes;
    if (timeoutMs !== undefined) {
      this.timer = setTimeout(() => this.fail(new HttpTimeoutError(timeoutMs)), timeoutMs);
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => this.fail(this.signal?.reason as Error);

  private fail(reason: Error): void {
    if (this.settled) return;
    this.reason = reason;
    this.settle();
    this.reject(reason);
    this.controller?.abort(reason);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.reason === undefined) this.controller = controller;
    else controller.abort(this.reason);
  }

  onResponseStart(_: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx answers come before the real one.
    if (status < 200) return;
    this.status = status;
    this.headers = headers;
    const length = headers['content-length'];
    if (typeof length === 'string' && Number(length) > this.maxBodyBytes) {
      this.fail(new errors.ResponseExceededMaxSizeError());
    }
  }

  onResponseData(_: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.first === undefined) this.first = chunk;
    else (this.more ??= [this.first]).push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settle();
    const body = this.more === undefined ? this.first : Buffer.concat(this.more);
    const { headers } = this;
    const header = (name: string): string | undefined => {
      const value = headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    this.resolve({ status: this.status, header, text: body?.toString('utf8') ?? '' });
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.failed(error);
  }

  /** The exchange failed in undici (or could not be dispatched): settles with its error. */
  failed(error: unknown): void {
    if (this.settled) return;
    this.settle();
    this.reject(error);
  }
}
