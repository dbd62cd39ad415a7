import type { IncomingMessage, ServerResponse } from 'node:http';
import { Keystream } from '@sandbox/evaluation-report';
import { DownloadRequestSchema } from '@sandbox/protocol';
import { readJson } from '../http-io';

const CHUNK_BYTES = 64 * 1024;

/**
 * `POST /v1/download`: streams the requested number of keystream bytes of the seed, as fast as the
 * connection drains them, and stops when the client goes away (the verifier ends it after its timer).
 */
export async function handleDownload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const request = await readJson(req, DownloadRequestSchema);
  const stream = new Keystream(Buffer.from(request.seed, 'hex'), 'download');
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': request.bytes,
    'cache-control': 'no-store',
  });
  let left = request.bytes;
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const size = Math.min(left, CHUNK_BYTES);
      left -= size;
      if (!res.write(stream.next(size))) {
        res.once('drain', pump);
        return;
      }
    }
    if (left === 0) res.end();
  };
  pump();
}
