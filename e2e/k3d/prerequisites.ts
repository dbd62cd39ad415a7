import type { Exec } from './exec';

/** Tools the suite runs, by absolute path or PATH name. */
export interface Tools {
  docker: string;
  k3d: string;
  kubectl: string;
}

/** Either every tool answered, or the first reason the suite cannot run here. */
export type Prerequisites = { ready: true; tools: Tools } | { ready: false; reason: string };

/** Dependencies of {@link checkPrerequisites}. */
export interface PrerequisiteDeps {
  exec: Exec;
  /** Finds k3d on PATH, or downloads the pinned release; resolves why not when it cannot. */
  findK3d: () => Promise<{ path: string } | { missing: string }>;
}

const firstLine = (text: string) => text.trim().split('\n')[0]?.slice(0, 200) ?? '';

/** What a failed or missing command says, in one line. */
async function probe(exec: Exec, command: string, args: string[]): Promise<string | undefined> {
  try {
    const result = await exec(command, args, { allowFailure: true, timeoutMs: 30_000 });
    if (result.code === 0) return undefined;
    if (result.code === null) return `${command} is not on PATH`;
    return firstLine(result.stderr || result.stdout) || `${command} ${args.join(' ')} exited ${result.code}`;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Checks, in order, a Docker engine (not just its CLI), kubectl and k3d. The first one missing is
 * the reason the suite skips, in the form it prints: `skipped: no Docker engine (…)`.
 */
export async function checkPrerequisites(deps: PrerequisiteDeps): Promise<Prerequisites> {
  const engine = await probe(deps.exec, 'docker', ['info', '--format', '{{.ServerVersion}}']);
  if (engine !== undefined) return { ready: false, reason: `no Docker engine (${engine})` };
  const kubectl = await probe(deps.exec, 'kubectl', ['version', '--client']);
  if (kubectl !== undefined) return { ready: false, reason: `no kubectl (${kubectl})` };
  const k3d = await deps.findK3d();
  if ('missing' in k3d) return { ready: false, reason: `no k3d (${k3d.missing})` };
  return { ready: true, tools: { docker: 'docker', kubectl: 'kubectl', k3d: k3d.path } };
}
