import type { OrchestratorDriver, ReplaceRequest } from './orchestrator-driver';
import { ReplacementError } from './orchestrator-driver';
import { runShell } from './run-shell';

/** Options of {@link createCommandDriver}. */
export interface CommandDriverOptions {
  /** The operator's shell command (see REPLACE_COMMAND). */
  command: string;
  timeoutMs: number;
  /** Answers 2xx once the new Node serves. */
  readyUrl: string;
  /** Environment the command inherits (PATH and the like); DRAIN_* are added. */
  baseEnv: Record<string, string>;
  /** @defaultValue 2000 */
  probeTimeoutMs?: number;
}

/**
 * Replaces Node outside Kubernetes with an operator's command (a systemd restart, a supervisor's
 * restart), then waits on Node's URL.
 */
export function createCommandDriver(options: CommandDriverOptions): OrchestratorDriver {
  return {
    kind: 'command',
    async replace(request: ReplaceRequest) {
      const env = {
        ...options.baseEnv,
        DRAIN_ID: request.drainId,
        DRAIN_TARGET_IMAGE: 'image' in request.target ? request.target.image : '',
      };
      const result = await runShell(options.command, env, options.timeoutMs);
      if (result.exitCode === 0) return;
      const how = result.timedOut
        ? `timed out after ${options.timeoutMs} ms`
        : `exited ${result.exitCode ?? result.signal ?? 'abnormally'}`;
      throw new ReplacementError(
        `replace command ${how}${result.stderrTail ? `: ${result.stderrTail}` : ''}`,
      );
    },
    async readiness() {
      try {
        const response = await fetch(options.readyUrl, {
          signal: AbortSignal.timeout(options.probeTimeoutMs ?? 2_000),
        });
        await response.body?.cancel();
        return response.ok ? { ready: true } : { ready: false, reason: `Node answered ${response.status}` };
      } catch (error) {
        return { ready: false, reason: `Node does not answer: ${(error as Error).message}` };
      }
    },
  };
}
