import net from 'node:net';

// The client's address, the one thing about a request that budgets, throttles
// and the delivery log key on. Anything a client sends can be forged, so the
// address is the TCP peer. Only when the peer is a proxy the operator trusts
// (TRIPLINE_TRUSTED_PROXIES) does X-Forwarded-For count, and then only its
// right-most hop that is not itself a trusted proxy: every proxy appends the
// address it saw, so hops to the left of the first untrusted one are whatever
// the client chose to send.
//
// The server entry (server.ts) resolves the address once per request, from
// the socket, and overwrites X-Forwarded-For with it before Next.js sees the
// request. Route handlers and actions read it back with clientAddress().

/** A parsed TRIPLINE_TRUSTED_PROXIES: CIDR blocks, addresses, or the word `loopback`. */
export type TrustedProxies = net.BlockList;

const ENTRY_MARK = Symbol.for('tripline.server-entry');

/** Parses `loopback`, `10.0.0.0/8`, `fd00::/8`, `192.0.2.7` (comma or space separated). Throws on a bad entry. */
export function parseTrustedProxies(spec: string | undefined): TrustedProxies {
  const list = new net.BlockList();
  for (const entry of (spec ?? '').split(/[\s,]+/).filter(Boolean)) {
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    if (!family || extra !== undefined) throw new Error(`"${entry}" is not an address, a CIDR block or "loopback"`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address!, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) throw new Error(`"${entry}" has an invalid prefix length`);
    list.addSubnet(address!, bits, type);
  }
  return list;
}

/** `::ffff:192.0.2.1` (an IPv4 client of a dual-stack socket) as `192.0.2.1`; anything else unchanged. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function isTrusted(address: string, trusted: TrustedProxies): boolean {
  const family = net.isIP(address);
  return family !== 0 && trusted.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** One X-Forwarded-For hop as an address: strips brackets and ports (`[::1]:80`, `1.2.3.4:80`); null when it is not an IP. */
function hopAddress(hop: string): string | null {
  let value = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  value = normaliseAddress(value);
  return net.isIP(value) ? value : null;
}

/** Whether the TCP peer is a proxy the operator trusts (only then do forwarding headers count). */
export function isTrustedPeer(peer: string | undefined, trusted: TrustedProxies): boolean {
  return isTrusted(normaliseAddress(peer ?? ''), trusted);
}

/**
 * The client address of a request whose TCP peer is `peer`: the peer itself,
 * unless it is a trusted proxy; then the right-most X-Forwarded-For hop that is
 * not a trusted proxy (every hop trusted: the left-most). A trusted proxy that
 * names no client (no header, or a hop that is not an address before an
 * untrusted one) gives `unknown`, never a proxy's own address: an IP allowlist
 * that covers the proxies' network would otherwise admit every client of a
 * proxy that does not set the header, and a forged value is never chosen.
 */
export function resolveClientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  const address = normaliseAddress(peer ?? '') || 'unknown';
  if (!isTrusted(address, trusted)) return address;
  if (forwardedFor === undefined) return 'unknown';
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let leftmost = 'unknown';
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hopAddress(hops[index]!);
    if (!hop) return 'unknown';
    if (!isTrusted(hop, trusted)) return hop;
    leftmost = hop;
  }
  return leftmost;
}

/** Marks this process as served by Tripline's own entry (server.ts), whose X-Forwarded-For is trustworthy. */
export function markServerEntry(): void {
  (globalThis as Record<symbol, unknown>)[ENTRY_MARK] = true;
}

/** Whether requests reach this process through Tripline's own server entry. */
export function servedByEntry(): boolean {
  return (globalThis as Record<symbol, unknown>)[ENTRY_MARK] === true;
}

/**
 * The client address of a request inside a route handler, page or action.
 * Under the server entry, X-Forwarded-For holds exactly the resolved address.
 * Without it (`next start` run by hand) the header is the client's own word, so
 * it is ignored: every request then shares the address "unknown", which keeps
 * budgets safe (one budget for all) rather than forgeable.
 */
export function clientAddress(headers: Headers): string {
  if (!servedByEntry()) return 'unknown';
  const value = headers.get('x-forwarded-for')?.trim();
  return value && net.isIP(value) ? value : 'unknown';
}
