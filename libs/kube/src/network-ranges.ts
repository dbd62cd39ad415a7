/** True for an IPv6 CIDR (it has a colon). */
export function isIpv6Cidr(cidr: string): boolean {
  return cidr.includes(':');
}
