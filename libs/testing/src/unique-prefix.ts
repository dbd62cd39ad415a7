import { randomBytes } from 'node:crypto';

/**
 * A fresh name for a test's queue prefix, queue name or key space: the label (reduced to
 * `[a-z0-9-]`) plus random hex. It contains no `:`, which BullMQ refuses in queue names.
 */
export function uniquePrefix(label: string): string {
  const clean = label
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${clean || 'test'}-${randomBytes(6).toString('hex')}`;
}
