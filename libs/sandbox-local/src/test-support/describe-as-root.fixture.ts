import { asRoot, describeRequiring } from '@sandbox/testing';

/** Integration tests of the driver create namespaces, veths and iptables rules: they need root. */
export const describeAsRoot = describeRequiring(asRoot);
