import { isIP } from 'node:net';

// Which IP addresses an outbound connection a user chose may reach: a
// repository fetch (lib/domain/definitions/repository-access.ts) and a
// notification (lib/domain/notifications/address.ts). A dashboard admin
// chooses the URL, but the server makes the connection: without this rule a
// stranger with a factory of their own could probe the server's network
// (its database, a cloud metadata service, an internal git host).
// Forbidden unless the operator allows private addresses: every address
// that is not globally routable, and IPv6 forms that carry such an IPv4
// address (IPv4-mapped, IPv4-compatible, NAT64, 6to4), since the connection
// ends at the embedded IPv4 address.

type Range4 = [base: number, bits: number, what: string];

const ip4 = (text: string) => text.split('.').reduce((value, part) => value * 256 + Number(part), 0);

const FORBIDDEN_V4: Range4[] = (
  [
    ['0.0.0.0', 8, 'unspecified'],
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'shared (CGNAT)'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local (cloud metadata)'],
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'IETF protocol assignments'],
    ['192.0.2.0', 24, 'documentation'],
    ['192.88.99.0', 24, '6to4 relay'],
    ['192.168.0.0', 16, 'private'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation'],
    ['203.0.113.0', 24, 'documentation'],
    ['224.0.0.0', 4, 'multicast'],
    ['240.0.0.0', 4, 'reserved or broadcast'],
  ] as const
).map(([base, bits, what]) => [ip4(base), bits, what]);

function forbiddenV4(value: number): string | null {
  for (const [base, bits, what] of FORBIDDEN_V4) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return what;
  }
  return null;
}

/** An IPv6 address as 16 bytes, or null when it is not one (zone IDs are refused). */
function parseIpv6(text: string): number[] | null {
  if (isIP(text) !== 6 || text.includes('%')) return null;
  let head = text;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const value = ip4(v4[1]!);
    tail.push((value >>> 16) & 0xffff, value & 0xffff);
    head = text.slice(0, -v4[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const words = (part: string | undefined) => (part ? part.split(':').filter(Boolean).map((word) => parseInt(word, 16)) : []);
  const leftWords = words(left);
  const rightWords = [...words(right), ...tail];
  const fill = right === undefined ? [] : new Array<number>(8 - leftWords.length - rightWords.length).fill(0);
  const all = right === undefined ? [...leftWords, ...tail] : [...leftWords, ...fill, ...rightWords];
  if (all.length !== 8) return null;
  return all.flatMap((word) => [word >> 8, word & 0xff]);
}

const prefixIs = (bytes: number[], prefix: number[], bits: number) => {
  for (let bit = 0; bit < bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
};

const v4At = (bytes: number[], offset: number) => ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!;

function forbiddenV6(bytes: number[]): string | null {
  const zero = new Array<number>(16).fill(0);
  if (bytes.every((byte) => byte === 0)) return 'unspecified';
  if (prefixIs(bytes, zero, 127) && bytes[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address decides.
  if (prefixIs(bytes, [...new Array<number>(10).fill(0), 0xff, 0xff, 0, 0, 0, 0], 96) || prefixIs(bytes, zero, 96)) {
    const inner = forbiddenV4(v4At(bytes, 12));
    return inner ? `IPv4-mapped ${inner}` : null;
  }
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) also reach an IPv4 address.
  if (prefixIs(bytes, [0, 0x64, 0xff, 0x9b, ...new Array<number>(12).fill(0)], 96)) {
    const inner = forbiddenV4(v4At(bytes, 12));
    return inner ? `NAT64 ${inner}` : null;
  }
  if (prefixIs(bytes, [0x20, 0x02, ...new Array<number>(14).fill(0)], 16)) {
    const inner = forbiddenV4(v4At(bytes, 2));
    return inner ? `6to4 ${inner}` : null;
  }
  const ranges: Array<[number[], number, string]> = [
    [[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'local NAT64'],
    [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'discard'],
    [[0x20, 0x01, 0, 0], 32, 'Teredo'],
    [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
    [[0xfc], 7, 'unique-local (includes fd00:ec2::254, cloud metadata)'],
    [[0xfe, 0x80], 10, 'link-local'],
    [[0xfe, 0xc0], 10, 'site-local'],
    [[0xff], 8, 'multicast'],
  ];
  for (const [prefix, bits, what] of ranges) {
    if (prefixIs(bytes, [...prefix, ...new Array<number>(16 - prefix.length).fill(0)], bits)) return what;
  }
  return null;
}

/**
 * Why an address is forbidden ("loopback", "private", ...), or null when it
 * is a public address. Anything that is not a well-formed IPv4 or IPv6
 * address is forbidden too: an address we cannot classify is not one we connect to.
 */
export function forbiddenAddressReason(address: string): string | null {
  const kind = isIP(address);
  if (kind === 4) return forbiddenV4(ip4(address));
  if (kind === 6) {
    const bytes = parseIpv6(address);
    return bytes ? forbiddenV6(bytes) : 'not an address';
  }
  return 'not an address';
}

/**
 * A host written as a number that is not a dotted-decimal IPv4 address:
 * "2130706433", "0x7f.1", "0177.0.0.1", "127.1". Resolvers and URL parsers
 * read these as IPv4 addresses, not always alike, so they are never sent
 * on; the address they mean is returned to say why (the WHATWG URL
 * parser's reading), or 'invalid'.
 */
export function numericHostAddress(host: string): string | null {
  const labels = host.replace(/\.$/, '').split('.');
  const last = labels[labels.length - 1] ?? '';
  if (!/^(0x[0-9a-f]*|[0-9]+)$/i.test(last)) return null; // a name (its last label is not a number)
  if (isIP(host) === 4 && labels.every((label) => label === '0' || !label.startsWith('0'))) return null; // canonical a.b.c.d
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return 'invalid';
  }
}
