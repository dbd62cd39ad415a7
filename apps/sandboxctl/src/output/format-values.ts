/** How long ago `iso` was, kubectl-style (`45s`, `12m`, `3h`, `5d`); `-` when unset. */
export function age(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  return duration(Math.max(0, now - Date.parse(iso)));
}

/** A duration in the largest unit that keeps it short (`45s`, `12m`, `3h10m`, `5d`). */
export function duration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d`;
}

/** Parses `--timeout`-style durations: `500ms`, `30s`, `5m`, `2h`, or plain seconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * factor);
}

const WEI_PER_ETH = 10n ** 18n;

/** Wei as ETH with up to 6 decimals (`0.012345 ETH`), exact for display of amounts at risk. */
export function formatWei(wei: string): string {
  const value = BigInt(wei);
  const whole = value / WEI_PER_ETH;
  const fraction = (value % WEI_PER_ETH).toString().padStart(18, '0').slice(0, 6).replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} ETH`;
}

/** The first `length` characters of an id or hash, for tables (`-o wide` and json show it whole). */
export function short(id: string, length = 12): string {
  return id.length > length ? `${id.slice(0, length)}…` : id;
}
