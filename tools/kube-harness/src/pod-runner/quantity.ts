const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL: Record<string, number> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/**
 * Parses a Kubernetes resource quantity (`500m`, `2`, `0.5`, `256Mi`, `1G`, `1e3`) into a plain
 * number of base units. Throws on anything else rather than guessing.
 */
export function parseQuantity(text: string): number {
  const match = /^([+]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|m|k|M|G|T))?$/.exec(text.trim());
  if (!match?.[1]) throw new Error(`not a resource quantity: ${JSON.stringify(text)}`);
  const value = Number(match[1]);
  if (match[2]) return value * 10 ** Number(match[2].slice(1));
  const suffix = match[3] ?? '';
  return value * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** CPU limit as a number of cores. */
export function cpuCores(quantity: string): number {
  return parseQuantity(quantity);
}

/** Memory limit in whole MiB, rounded up (a limit is never made smaller). */
export function memoryMiB(quantity: string): number {
  return Math.ceil(parseQuantity(quantity) / 2 ** 20);
}
