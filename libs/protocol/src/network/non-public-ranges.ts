/**
 * IPv4 ranges that are not public internet (RFC 6890 special-purpose blocks): private ranges, loopback,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, documentation and benchmarking nets
 * (some hosts number their own LAN from them), multicast and reserved space, and Azure's wire server
 * (168.63.129.16: a public address that answers only the VMs of its host, with their platform secrets).
 * App egress never reaches any of them, whatever its policy; cluster pod/service ranges and node
 * addresses are added per machine. This is the one list both drivers build their rules from.
 */
export const NON_PUBLIC_IPV4_RANGES: readonly string[] = Object.freeze([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '168.63.129.16/32',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
]);

/**
 * The IPv6 equivalents: unspecified, loopback, NAT64, discard, documentation, ULA, link-local, multicast,
 * and AWS's IPv6 instance metadata (fd00:ec2::/32; inside the ULA block, named so it stays refused if
 * that entry is ever narrowed).
 * IPv4-mapped addresses (::ffff:0:0/96) are left out on purpose: the IPv4 list already covers what they
 * map to, and Kubernetes refuses a NetworkPolicy ipBlock that names them.
 */
export const NON_PUBLIC_IPV6_RANGES: readonly string[] = Object.freeze([
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '100::/64',
  '2001:db8::/32',
  'fc00::/7',
  'fd00:ec2::/32',
  'fe80::/10',
  'ff00::/8',
]);
