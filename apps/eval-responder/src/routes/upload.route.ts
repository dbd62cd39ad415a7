import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_TRANSFER_BYTES } from '@sandbox/protocol';
import { RequestError, sendJson } from '../http-io';

/** `POST /v1/upload`: counts and digests the body as it arrives; answers once it ends. */
export async function handleUpload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const digest = createHash('sha256');
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_TRANSFER_BYTES) throw new RequestError('payload_too_large', 'upload too large');
    digest.update(chunk);
  }
  sendJson(res, 200, { bytes, sha256: digest.digest('hex') });
}
