import type { DrainTarget } from '@sandbox/protocol';

/** What to replace, for one drain. */
export interface ReplaceRequest {
  readonly drainId: string;
  readonly target: DrainTarget;
  /** When this drain's replacement started: fixed per drain, so a repeated request is the same request. */
  readonly restartedAt: string;
}

/** Whether the new orchestrator serves. */
export type NodeReadiness = { ready: true } | { ready: false; reason: string };

/**
 * Replaces the orchestrator (Node). `replace` is idempotent per drain id: the controller may call it
 * again after a crash in the middle, and it must not replace Node a second time for that drain.
 */
export interface OrchestratorDriver {
  readonly kind: string;
  /** Starts the replacement; resolves once the old Node is being (or has been) replaced. */
  replace(request: ReplaceRequest): Promise<void>;
  /** Looks once at whether the replacement serves. */
  readiness(request: ReplaceRequest): Promise<NodeReadiness>;
}

/** The replacement cannot succeed (bad command, refused patch): the drain fails and resumes. */
export class ReplacementError extends Error {
  override readonly name = 'ReplacementError';
}
