import { z } from 'zod';

const cpuPattern = /^(?:[1-9][0-9]{0,5}m|[0-9]{1,3}(?:\.[0-9]{1,3})?)$/;
const memoryPattern = /^[1-9][0-9]{0,14}(?:Ki|Mi|Gi|Ti)?$/;
const memoryUnits: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** Smallest and largest CPU limit, in millicores. */
export const CPU_LIMITS = Object.freeze({ min: 10, max: 64_000 });
/** Smallest and largest memory limit, in bytes (32 MiB: below it the gVisor sentry alone does not fit). */
export const MEMORY_LIMITS = Object.freeze({ min: 32 * 2 ** 20, max: 256 * 2 ** 30 });

/**
 * Millicores of a Kubernetes-style CPU quantity: `"250m"` → 250, `"1.5"` → 1500. Throws on a quantity
 * {@link CpuQuantitySchema} refuses.
 */
export function cpuToMillicores(quantity: string): number {
  if (!cpuPattern.test(quantity)) throw new RangeError('invalid CPU quantity');
  if (quantity.endsWith('m')) return Number(quantity.slice(0, -1));
  const [whole = '0', fraction = ''] = quantity.split('.');
  return Number(whole) * 1000 + Number(fraction.padEnd(3, '0'));
}

/**
 * Bytes of a Kubernetes-style memory quantity with a binary suffix or none: `"256Mi"` → 268435456.
 * Throws on a quantity {@link MemoryQuantitySchema} refuses.
 */
export function memoryToBytes(quantity: string): number {
  if (!memoryPattern.test(quantity)) throw new RangeError('invalid memory quantity');
  const unit = quantity.slice(-2);
  const factor = memoryUnits[unit];
  return factor === undefined ? Number(quantity) : Number(quantity.slice(0, -2)) * factor;
}

/** CPU limit as a Kubernetes quantity: millicores (`"500m"`) or cores with up to 3 decimals (`"2"`). */
export const CpuQuantitySchema = z
  .string()
  .regex(cpuPattern, { message: 'must be millicores like "500m" or cores like "1.5"', abort: true })
  .refine(
    (value) => {
      const millicores = cpuToMillicores(value);
      return millicores >= CPU_LIMITS.min && millicores <= CPU_LIMITS.max;
    },
    { message: `must be between ${CPU_LIMITS.min}m and ${CPU_LIMITS.max / 1000} CPUs` },
  );

/** Memory limit as a Kubernetes quantity with a binary suffix (`"512Mi"`, `"2Gi"`) or plain bytes. */
export const MemoryQuantitySchema = z
  .string()
  .regex(memoryPattern, {
    message: 'must be a whole number of bytes, optionally with Ki, Mi, Gi or Ti',
    abort: true,
  })
  .refine(
    (value) => {
      const bytes = memoryToBytes(value);
      return bytes >= MEMORY_LIMITS.min && bytes <= MEMORY_LIMITS.max;
    },
    { message: 'must be between 32Mi and 256Gi' },
  );

/** CPU and memory limits of every instance of an app (enforced by the driver, also used as requests). */
export const ResourcesSchema = z.strictObject({ cpu: CpuQuantitySchema, memory: MemoryQuantitySchema });
export type Resources = z.infer<typeof ResourcesSchema>;
