// A process's resident memory from /proc (Linux), for the adapter's benchmarks.
import { readFile } from 'node:fs/promises';

/** Resident set size and its parts, in MB. */
export interface ProcessMemory {
  rssMb: number;
  /** Anonymous pages: V8's heaps and code space, native allocations, stacks. */
  anonMb: number;
  /** File-backed pages: mostly the node binary's code and data that running touched. */
  fileMb: number;
}

const kbField = (status: string, field: string): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'mu').exec(status)?.[1] ?? 0) / 1024;

/** The resident memory of `pid` now. */
export async function processMemory(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return {
    rssMb: kbField(status, 'VmRSS'),
    anonMb: kbField(status, 'RssAnon'),
    fileMb: kbField(status, 'RssFile') + kbField(status, 'RssShmem'),
  };
}
