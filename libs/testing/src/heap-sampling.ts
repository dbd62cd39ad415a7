// Allocation accounting for benchmarks: bytes allocated over a GCProfiler window, and the top sites of
// a V8 sampling heap profile (HeapProfiler.startSampling with collected objects included).
import type { GCProfiler } from 'node:v8';

type GCProfile = ReturnType<GCProfiler['stop']>;

/**
 * Bytes allocated on V8's heap during a {@link GCProfiler} window, given the heap in use at its start
 * and end: the growth up to each GC (what it found in use minus what the previous one left) plus the
 * growth since the last one.
 */
export function allocatedBytes(
  profile: GCProfile | undefined,
  usedAtStart: number,
  usedAtEnd: number,
): number {
  let total = 0;
  let previousAfter = usedAtStart;
  for (const { beforeGC, afterGC } of profile?.statistics ?? []) {
    total += Math.max(0, beforeGC.heapStatistics.usedHeapSize - previousAfter);
    previousAfter = afterGC.heapStatistics.usedHeapSize;
  }
  return total + Math.max(0, usedAtEnd - previousAfter);
}

/** The parts of a `HeapProfiler.SamplingHeapProfile` read here. */
export interface SamplingProfile {
  head: SamplingNode;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

function frameName(node: SamplingNode): string {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const file = url.replace(/^.*node_modules\//u, '').replace(/^.*\/(apps|libs)\//u, '$1/');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}:${columnNumber + 1}`;
}

function percentLines(bytes: Map<string, number>, total: number, limit: number): string[] {
  return [...bytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, size]) => `${((size / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
}

/**
 * The `limit` functions with the most sampled bytes allocated by themselves (with their caller), then
 * the `limit` with the most allocated by themselves and everything they called, as text lines.
 */
export function topAllocationSites(profile: SamplingProfile, limit: number): string {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const visit = (node: SamplingNode, stack: string[]): void => {
    const name = frameName(node);
    const here = [...stack, name];
    if (node.selfSize > 0) {
      const site = `${name} <- ${stack.at(-1) ?? ''}`;
      self.set(site, (self.get(site) ?? 0) + node.selfSize);
      for (const frame of new Set(here)) inclusive.set(frame, (inclusive.get(frame) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) visit(child, here);
  };
  visit(profile.head, []);
  return [
    '--- allocated by the function itself (<- its caller)',
    ...percentLines(self, total, limit),
    '--- allocated by the function and what it called',
    ...percentLines(inclusive, total, limit),
  ].join('\n');
}
