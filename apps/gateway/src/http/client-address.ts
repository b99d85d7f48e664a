import ipaddr from 'ipaddr.js';

/** The Express setting configureHttp puts LIMIT_IPV6_PREFIX in, for the ClientAddress decorator. */
export const IPV6_PREFIX_SETTING = 'limit ipv6 prefix';

/**
 * What the per-address limits count a client by (DECISIONS "Fair play": logins, registrations, push
 * streams). An IPv4 address is itself, also when written IPv4-mapped (::ffff:a.b.c.d). An IPv6
 * address counts as its network: one subscriber is given a whole /56 or /64 and can send from any
 * address in it, so counting single addresses would let one player rotate past every limit.
 */
export function clientAddressKey(ip: string | undefined, ipv6Prefix: number): string {
  if (!ip || !ipaddr.isValid(ip)) return ip || 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${address.toNormalizedString()}/${ipv6Prefix}`);
  return `${network.toString()}/${ipv6Prefix}`;
}
