import type { CommandRunner } from './command-runner';
import { buildRemovalScript, parseChains } from './firewall-rules';

/** Applies and removes iptables rules in batches through iptables-restore (one atomic commit each). */
export interface Firewall {
  apply(script: string): Promise<void>;
  /** Removes the chains and every jump to them; chains that do not exist are fine. */
  removeChains(chains: ReadonlySet<string>): Promise<void>;
  /** Names of all chains in the filter and nat tables. */
  listChains(): Promise<string[]>;
  /** The current rules of every table, as `iptables-save` prints them. */
  dump(): Promise<string>;
}

/** Binaries the firewall uses. */
export interface FirewallBinaries {
  /** @defaultValue 'iptables-restore' */
  restore?: string;
  /** @defaultValue 'iptables-save' */
  save?: string;
}

/** The real {@link Firewall} on top of a {@link CommandRunner}. */
export function createFirewall(run: CommandRunner, binaries: FirewallBinaries = {}): Firewall {
  const restore = binaries.restore ?? 'iptables-restore';
  const save = binaries.save ?? 'iptables-save';
  const dump = async () => (await run(save, [])).stdout;
  return {
    async apply(script) {
      await run(restore, ['-w', '5', '--noflush'], { input: script });
    },
    async removeChains(chains) {
      if (chains.size === 0) return;
      const script = buildRemovalScript(await dump(), chains);
      if (script) await run(restore, ['-w', '5', '--noflush'], { input: script });
    },
    async listChains() {
      const tables = parseChains(await dump());
      return [...(tables.get('filter') ?? []), ...(tables.get('nat') ?? [])];
    },
    dump,
  };
}
