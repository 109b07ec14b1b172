import { isIP } from 'node:net';

/** Whether `hostname` (as in a URL: IPv6 may be bracketed) names this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.split('.')[0] === '127';
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}
