import { pino } from 'pino';
import type { InstanceSpecInput } from '../instance-spec.schema';
import { EXAMPLE_APP, ensureExampleAppImage } from '../images/repository-apps';

/** The example app's entry file in this repository. */
export const EXAMPLE_ENTRY = EXAMPLE_APP.entryFile;

/** Builds (or finds) the example app's image and returns its tag. */
export const exampleImage = (): Promise<string> => ensureExampleAppImage();

/** A spec of the example app with small limits (half a CPU, so several fit on a two-core host). */
export function exampleSpec(image: string, overrides: Partial<InstanceSpecInput> = {}): InstanceSpecInput {
  return { image, port: 8080, resources: { cpus: 0.5, memoryMb: 256 }, ...overrides };
}

/** A logger for tests: errors only. */
export const testLogger = pino({ level: 'error' });
