import type { IncomingMessage } from 'node:http';
import { isRouteId } from '@sandbox/protocol';
import { decodeString, forEachField, GoJsonError, parseJsonKeepingNumbers } from '../go/go-json';

/** A request header as one string ('' when absent or repeated). */
export function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : '';
}

/** An Ethereum address, with or without its `0x`. */
export const isAddress = (text: string): boolean => /^(0x)?[0-9a-fA-F]{40}$/u.test(text);

/**
 * The body of `POST /refresh-payment`, `{sender, manifest_id}` decoded as Go's JSON does; undefined
 * when it is not JSON, the sender is no address or the manifest is no route id.
 */
export function parseRefreshRequest(
  body: Buffer | undefined,
): { sender: string; manifest: string } | undefined {
  let sender = '';
  let manifest = '';
  try {
    forEachField(
      parseJsonKeepingNumbers(body?.toString('utf8') ?? ''),
      ['sender', 'manifest_id'],
      (field, value) => {
        if (field === 'sender') sender = decodeString(value, sender);
        else manifest = decodeString(value, manifest);
      },
    );
  } catch (error) {
    if (!(error instanceof GoJsonError)) throw error;
    return undefined;
  }
  if (!body || !isAddress(sender) || !isRouteId(manifest)) return undefined;
  return { sender, manifest };
}
