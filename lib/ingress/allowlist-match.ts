import net from 'node:net';
import { parseRange } from '@/lib/ingress/allowlist';

// Matching a client address against a webhook's IP allowlist with node:net's
// BlockList, which compares an IPv4-mapped IPv6 address (::ffff:192.0.2.1)
// with IPv4 ranges and an IPv4 address with ::ffff:0:0/96 ranges, as a
// dual-stack socket needs (lib/ingress/allowlist.test.ts checks it against a
// reference by property). Server-side only: the browser has no node:net.

/** The list as a BlockList to check addresses against; null for an empty list (every address admitted). */
export function compileAllowlist(ranges: readonly string[]): net.BlockList | null {
  if (ranges.length === 0) return null;
  const list = new net.BlockList();
  for (const text of ranges) {
    const parsed = parseRange(text);
    // Stored lists were checked when saved; a range that no longer parses adds nothing (admits nobody more).
    if (!parsed.ok) continue;
    list.addSubnet(parsed.address, parsed.prefix, parsed.family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Whether `address` (a client address as the server entry resolved it) is in the list; an unknown address is not. */
export function allowlistAdmits(list: net.BlockList | null, address: string): boolean {
  if (list === null) return true;
  const family = net.isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
