// A webhook's IP allowlist: at most MAX_ALLOWLIST_RANGES IPv4 and IPv6 CIDR
// ranges. An empty list admits every address. The ingress checks the client
// address the server entry resolved (the TCP peer, or the right-most untrusted
// X-Forwarded-For hop behind a trusted proxy: lib/platform/entry/client-address.ts),
// never a header the client chose. This file is the list's text: parsing and
// checking, with no Node.js module, so the dashboard's form checks a list as
// the server does. Matching is node:net's BlockList (allowlist-match.ts).

export const MAX_ALLOWLIST_RANGES = 100;
/** The longest text a range can be: a full IPv6 address with a prefix is 43 characters. */
export const MAX_RANGE_LENGTH = 64;

export type ParsedRange = { ok: true; range: string; family: 4 | 6; address: string; prefix: number } | { ok: false; message: string };

/**
 * `10.0.0.0/8`, `2001:db8::/32`, or a single address (`192.0.2.7`, taken as
 * /32 or /128), in its canonical text: the network address with the host bits
 * cleared and IPv6 compressed. The message says what is wrong otherwise.
 */
export function parseRange(text: string): ParsedRange {
  const value = text.trim();
  if (value === '') return { ok: false, message: 'Enter an IPv4 or IPv6 range, such as 192.0.2.0/24 or 2001:db8::/32' };
  if (value.length > MAX_RANGE_LENGTH) return { ok: false, message: `A range is at most ${MAX_RANGE_LENGTH} characters` };
  const slash = value.indexOf('/');
  const address = slash < 0 ? value : value.slice(0, slash);
  const family = ipFamily(address);
  if (family === 0) return { ok: false, message: `${JSON.stringify(address)} is not an IPv4 or IPv6 address` };
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const digits = value.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits) || Number(digits) > max) {
      return { ok: false, message: `${JSON.stringify(value)} has an invalid prefix length: an IPv${family} range ends in /0 to /${max}` };
    }
    prefix = Number(digits);
  }
  const network = networkAddress(address, family, prefix);
  return { ok: true, range: prefix === max ? network : `${network}/${prefix}`, family, address: network, prefix };
}

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** 4 or 6 for an IPv4 or IPv6 address as node:net's isIP reads one (without a zone ID), else 0; checked against it in allowlist.test.ts. */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return 0;
  // An IPv4 tail (::ffff:192.0.2.1) stands for two groups.
  let rest = text;
  const tail = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    if (!IPV4.test(tail[1]!)) return 0;
    rest = `${text.slice(0, text.length - tail[1]!.length)}0:0`;
  }
  if (rest.includes('.')) return 0;
  const halves = rest.split('::');
  if (halves.length > 2) return 0;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (![...left, ...right].every((group) => GROUP.test(group))) return 0;
  return (halves.length === 1 ? left.length === 8 : left.length + right.length <= 7) ? 6 : 0;
}

/** The address with its host bits cleared, in canonical text. */
function networkAddress(address: string, family: 4 | 6, prefix: number): string {
  const bits = family === 4 ? 32 : 128;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return formatAddress(addressBits(address, family) & mask, family);
}

/** An address as a number (IPv4: 32 bits, IPv6: 128 bits; an embedded IPv4 tail is read as its two groups). */
export function addressBits(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = addressBits(v4[1]!, 4);
    text = `${text.slice(0, v4.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function formatAddress(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run (of two or more) of zero groups becomes "::", the first such run on a tie.
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

export type AllowlistProblem = { index: number | null; message: string };

/** The canonical list (duplicates dropped, order kept), or the problems, each with the entry's index (null for the list). */
export function checkAllowlist(list: readonly string[]): { ok: true; ranges: string[] } | { ok: false; problems: AllowlistProblem[] } {
  if (list.length > MAX_ALLOWLIST_RANGES) {
    return { ok: false, problems: [{ index: null, message: `An allowlist holds at most ${MAX_ALLOWLIST_RANGES} ranges (this one has ${list.length})` }] };
  }
  const problems: AllowlistProblem[] = [];
  const ranges: string[] = [];
  list.forEach((text, index) => {
    const parsed = parseRange(text);
    if (!parsed.ok) problems.push({ index, message: parsed.message });
    else if (!ranges.includes(parsed.range)) ranges.push(parsed.range);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, ranges };
}
