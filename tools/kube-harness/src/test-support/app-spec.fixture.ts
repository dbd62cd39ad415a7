import { AppSpecSchema, type AppSpec, type AppSpecInput } from '@sandbox/protocol';
import { exampleAppSpec as exampleAppInput } from '@sandbox/testing';

/** A parsed spec of the example app, one warm single-session instance; `overrides` replace top-level fields. */
export function exampleAppSpec(image: string, overrides: Partial<AppSpecInput> = {}): AppSpec {
  return AppSpecSchema.parse(
    exampleAppInput(image, { kind: 'single-session', warmPool: 1, max: 2 }, overrides),
  );
}
