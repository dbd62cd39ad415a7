import { describe } from '@jest/globals';

/** The real local driver needs root (namespaces, veths, iptables). */
export const describeAsRoot = process.getuid?.() === 0 ? describe : describe.skip;
