import { describe } from '@jest/globals';

/** Integration tests of the driver create namespaces, veths and iptables rules: they need root. */
export const describeAsRoot = process.getuid?.() === 0 ? describe : describe.skip;
