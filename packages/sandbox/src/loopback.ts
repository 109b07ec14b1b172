import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** 127.0.0.0/8 and ::1, the addresses that never leave this machine (IPv4-mapped loopback included) */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Whether the sandbox may listen on `host`: `localhost` or a loopback address (IPv6 with or without brackets).
 * The sandbox checks this itself rather than trusting its caller: it must never listen beyond this machine.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = /^\[(.*)\]$/.exec(host)?.[1] ?? host;
  if (isIPv4(bare)) return LOOPBACK.check(bare, 'ipv4');
  if (isIPv6(bare)) return LOOPBACK.check(bare, 'ipv6');
  return false;
}
