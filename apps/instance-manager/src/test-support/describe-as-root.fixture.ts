import { asRoot, describeRequiring } from '@sandbox/testing';

/** The real local driver needs root (namespaces, veths, iptables). */
export const describeAsRoot = describeRequiring(asRoot);
