// The adapter's memory limit as its deployment sets it, for benchmarks that run it as its pod does.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { memoryToBytes } from '@sandbox/protocol';
import { createMemoryCgroup, type MemoryCgroup } from '@sandbox/testing';
import { parseAllDocuments } from 'yaml';

const MANIFEST = fileURLToPath(new URL('../../../../deploy/base/adapter.yaml', import.meta.url));

interface ContainerSpec {
  name?: string;
  resources?: { limits?: { memory?: string } };
}

/**
 * `resources.limits.memory` of the adapter container in deploy/base/adapter.yaml, in bytes. Node
 * sizes V8's heaps from the memory limit it runs under (its young generation most of all), so a
 * measurement of the pod's memory needs the pod's limit.
 */
export async function adapterPodMemoryLimit(): Promise<number> {
  const documents = parseAllDocuments(await readFile(MANIFEST, 'utf8')).map((document) => document.toJS());
  for (const document of documents as Array<{ kind?: string; spec?: unknown }>) {
    if (document.kind !== 'Deployment') continue;
    const containers = (document.spec as { template?: { spec?: { containers?: ContainerSpec[] } } }).template
      ?.spec?.containers;
    const memory = containers?.find((container) => container.name === 'adapter')?.resources?.limits?.memory;
    if (memory !== undefined) return memoryToBytes(memory);
  }
  throw new Error(`no memory limit for the adapter container in ${MANIFEST}`);
}

/**
 * The memory cgroup a benchmark runs the adapter in: one with the pod's limit (`pod`), or none
 * (`none`: the whole machine's memory, which V8 then sizes its heaps for).
 */
export async function benchMemoryCgroup(mode: string): Promise<MemoryCgroup | undefined> {
  if (mode === 'none') return undefined;
  if (mode !== 'pod') throw new Error(`--memory-limit is pod or none, not "${mode}"`);
  return createMemoryCgroup(await adapterPodMemoryLimit(), 'adapter-bench');
}
