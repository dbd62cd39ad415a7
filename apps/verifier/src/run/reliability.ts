import type { FailureKind } from '@sandbox/protocol';
import { FailureKindSchema } from '@sandbox/protocol';

/** Counts of one run: requests made on the target path and failures by kind. */
export class ReliabilityCounter {
  requests = 0;
  resets = 0;
  readonly failures = Object.fromEntries(FailureKindSchema.options.map((kind) => [kind, 0])) as Record<
    FailureKind,
    number
  >;

  request(): void {
    this.requests += 1;
  }

  fail(kind: FailureKind): void {
    this.failures[kind] += 1;
    if (kind === 'reset') this.resets += 1;
  }

  snapshot() {
    return { requests: this.requests, failures: { ...this.failures }, resets: this.resets };
  }
}
