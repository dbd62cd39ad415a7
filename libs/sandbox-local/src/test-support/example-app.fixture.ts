import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { InstanceSpecInput } from '../instance-spec.schema';
import { ensureNodeAppImage } from '../images/node-app-image';

/** The example app's entry file in this repository. */
export const EXAMPLE_ENTRY = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  'apps',
  'example-app',
  'src',
  'main.ts',
);

/** Builds (or finds) the example app's image and returns its tag. */
export async function exampleImage(): Promise<string> {
  return (await ensureNodeAppImage({ name: 'example-app', entryFile: EXAMPLE_ENTRY, port: 8080 })).tag;
}

/** A spec of the example app with small limits. */
export function exampleSpec(image: string, overrides: Partial<InstanceSpecInput> = {}): InstanceSpecInput {
  return { image, port: 8080, resources: { cpus: 1, memoryMb: 256 }, ...overrides };
}

/** A logger for tests: errors only. */
export const testLogger = pino({ level: 'error' });
