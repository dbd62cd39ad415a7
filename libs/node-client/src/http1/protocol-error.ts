/** A response that breaks HTTP/1.1 (or that this client refuses to read); its connection is dropped. */
export class HttpProtocolError extends Error {
  readonly code = 'HPE_INVALID_RESPONSE';
  constructor(message: string) {
    super(`invalid HTTP response: ${message}`);
    this.name = 'HttpProtocolError';
  }
}
