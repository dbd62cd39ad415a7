import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { HostNetwork } from './host-network';

/**
 * The host's own forwarding setting of the uplink, kept while instances with egress `internet` need it
 * on. The value the host had before is written to a file under /run (gone at reboot, like the setting
 * itself), so a restarted driver still puts it back when the last such instance stops.
 */
export interface ForwardingLedger {
  /** Turns forwarding on for the uplink, first recording the host's value if none is recorded. */
  claim(uplink: string): Promise<void>;
  /** Puts the recorded value back and forgets it; nothing when nothing is recorded. */
  release(): Promise<void>;
}

interface Recorded {
  uplink: string;
  value: string;
}

const key = (uplink: string) => `net.ipv4.conf.${uplink}.forwarding`;

export function createForwardingLedger(network: HostNetwork, path: string): ForwardingLedger {
  const recorded = async (): Promise<Recorded | undefined> => {
    try {
      const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Recorded>;
      return typeof parsed.uplink === 'string' && typeof parsed.value === 'string'
        ? { uplink: parsed.uplink, value: parsed.value }
        : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    async claim(uplink) {
      if (!(await recorded())) {
        const value = (await network.readSysctls([key(uplink)])).get(key(uplink));
        if (value === undefined) throw new Error(`the uplink ${uplink} has no forwarding setting`);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, JSON.stringify({ uplink, value }));
      }
      await network.writeSysctls(new Map([[key(uplink), '1']]));
    },
    async release() {
      const found = await recorded();
      if (!found) return;
      await network.writeSysctls(new Map([[key(found.uplink), found.value]]));
      await rm(path, { force: true });
    },
  };
}
