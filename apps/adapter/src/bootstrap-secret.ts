import { readSecretFile, type SecretScrubber } from '@sandbox/service-kit';

/** The bootstrap secret file cannot be sent as Node compares it; the message never shows its bytes. */
export class BootstrapSecretError extends Error {
  override readonly name = 'BootstrapSecretError';
}

/**
 * Node compares the `Authorization` header with the secret file's exact bytes. An HTTP header
 * cannot carry line breaks or other control characters, and its leading and trailing spaces are
 * stripped on the way, so a secret with any of those can never match: refuse it with the fix.
 * Bytes are mapped one to one (latin1), so non-ASCII secrets go out exactly as stored.
 */
export function bootstrapHeaderValue(bytes: Uint8Array): string {
  const last = bytes.at(-1);
  if (last === 0x0a || last === 0x0d) {
    throw new BootstrapSecretError(
      'the bootstrap secret file ends with a line break; Node compares the exact bytes and an HTTP header ' +
        'cannot carry one, so write the file without a trailing newline (printf instead of echo)',
    );
  }
  for (const byte of bytes) {
    if ((byte < 0x20 && byte !== 0x09) || byte === 0x7f) {
      throw new BootstrapSecretError(
        'the bootstrap secret contains a control character an HTTP header cannot carry',
      );
    }
  }
  const edges = [bytes[0], last];
  if (edges.some((byte) => byte === 0x20 || byte === 0x09)) {
    throw new BootstrapSecretError(
      'the bootstrap secret starts or ends with a space or tab, which HTTP strips from header values',
    );
  }
  return Buffer.from(bytes).toString('latin1');
}

/** The bootstrap credential, re-read from its file when Node refuses it (the operator may have rotated it). */
export interface BootstrapSecret {
  /** The `Authorization` value for a registration. Secret. */
  value(): string;
  /** Re-reads the file, at most once per `minReloadIntervalMs`; keeps the old value if the file is unusable. */
  reload(): void;
}

/**
 * Reads the bootstrap secret file (exact bytes, registered with the log scrubber). Throws a
 * `SecretFileError` or {@link BootstrapSecretError} at start-up when it is unusable.
 */
export function loadBootstrapSecret(
  path: string,
  deps: {
    secrets: SecretScrubber;
    now: () => number;
    minReloadIntervalMs?: number;
    onReloadError?: (error: unknown) => void;
  },
): BootstrapSecret {
  const read = (): string => bootstrapHeaderValue(readSecretFile(path, { scrubber: deps.secrets }));
  let current = read();
  let lastReload = deps.now();
  const minInterval = deps.minReloadIntervalMs ?? 5_000;
  return {
    value: () => current,
    reload() {
      if (deps.now() - lastReload < minInterval) return;
      lastReload = deps.now();
      try {
        current = read();
      } catch (error) {
        deps.onReloadError?.(error);
      }
    },
  };
}
