import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBits, checkAllowlist, ipFamily, MAX_ALLOWLIST_RANGES, parseRange } from '@/lib/ingress/allowlist';
import { allowlistAdmits, compileAllowlist } from '@/lib/ingress/allowlist-match';

// The reference the BlockList is held to: every address in IPv6's 128 bits,
// an IPv4 address as its IPv4-mapped form (::ffff:a.b.c.d) and an IPv4 range
// /p as ::ffff:0:0/96 plus p bits. An address is in a range when their first
// prefix bits agree.
const MAPPED = 0xffffn << 32n;
function to128(address: string): bigint {
  return address.includes(':') ? addressBits(address, 6) : MAPPED | addressBits(address, 4);
}
function referenceAdmits(ranges: string[], address: string): boolean {
  return ranges.some((text) => {
    const range = parseRange(text);
    if (!range.ok) throw new Error(text);
    const prefix = range.family === 4 ? 96 + range.prefix : range.prefix;
    const shift = BigInt(128 - prefix);
    return to128(address) >> shift === to128(range.address) >> shift;
  });
}

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
// Groups drawn from a few values, so that ranges and addresses often share prefixes.
const group = fc.oneof(fc.constantFrom(0, 1, 0xffff, 0xdb8, 0x2001), fc.nat(0xffff));
const v6 = fc.array(group, { minLength: 8, maxLength: 8 }).map((groups) => groups.map((g) => g.toString(16)).join(':'));
// IPv4-mapped (::ffff:a.b.c.d and its hex form) and IPv4-compatible-looking addresses.
const mapped = fc.oneof(v4.map((a) => `::ffff:${a}`), v4.map((a) => `::FFFF:${a}`), v4.map((a) => `::${a}`));
const address = fc.oneof(v4, v6, mapped, fc.constantFrom('::1', '::', '127.0.0.1', '0.0.0.0', '::ffff:0:0'));
const range = fc.oneof(
  fc.tuple(v4, fc.nat(32)).map(([a, p]) => `${a}/${p}`),
  fc.tuple(fc.oneof(v6, mapped), fc.nat(128)).map(([a, p]) => `${a}/${p}`),
  address,
);

describe('the IP allowlist', () => {
  it('admits exactly the addresses the reference admits, IPv4, IPv6 and IPv4-mapped IPv6 alike', () => {
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 5 }), fc.array(address, { minLength: 1, maxLength: 10 }), (ranges, addresses) => {
        const checked = checkAllowlist(ranges);
        if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
        const list = compileAllowlist(checked.ranges);
        for (const a of addresses) expect(allowlistAdmits(list, a), `${a} in ${checked.ranges.join(', ')}`).toBe(referenceAdmits(checked.ranges, a));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an address exactly as node:net does (the form checks lists in the browser, without it)', () => {
    const text = fc.oneof(
      address,
      address.map((a) => a.replace(/:0(?=:|$)/, ':')),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.%x '), maxLength: 45 }),
      fc.tuple(address, fc.nat(44), fc.constantFrom(':', '.', '::', '0', '00000', '256', '')).map(([a, at, insert]) => a.slice(0, at) + insert + a.slice(at)),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(ipFamily(value), value).toBe(value.includes('%') ? 0 : net.isIP(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it('matches a mapped address against an IPv4 range and an IPv4 address against a mapped range', () => {
    expect(allowlistAdmits(compileAllowlist(['192.0.2.0/24']), '::ffff:192.0.2.9')).toBe(true);
    expect(allowlistAdmits(compileAllowlist(['::ffff:192.0.2.0/120']), '192.0.2.9')).toBe(true);
    expect(allowlistAdmits(compileAllowlist(['192.0.2.0/24']), '::ffff:192.0.3.9')).toBe(false);
    // ::1 is not 0.0.0.1, and 0.0.0.0/0 is every IPv4 address but no other IPv6 one.
    expect(allowlistAdmits(compileAllowlist(['0.0.0.0/0']), '::1')).toBe(false);
    expect(allowlistAdmits(compileAllowlist(['0.0.0.0/0']), '203.0.113.5')).toBe(true);
  });

  it('admits everyone when empty and nobody whose address is unknown', () => {
    expect(allowlistAdmits(compileAllowlist([]), 'unknown')).toBe(true);
    expect(allowlistAdmits(compileAllowlist(['::/0']), 'unknown')).toBe(false);
  });

  it('stores ranges canonically: host bits cleared, IPv6 compressed, a single address without a prefix', () => {
    expect(parseRange('10.1.2.3/8')).toMatchObject({ ok: true, range: '10.0.0.0/8' });
    expect(parseRange(' 2001:0DB8:0000:0000::1/32 ')).toMatchObject({ ok: true, range: '2001:db8::/32' });
    expect(parseRange('192.0.2.7')).toMatchObject({ ok: true, range: '192.0.2.7' });
    expect(parseRange('192.0.2.7/32')).toMatchObject({ ok: true, range: '192.0.2.7' });
    expect(parseRange('2001:db8:0:0:1:0:0:1/128')).toMatchObject({ ok: true, range: '2001:db8::1:0:0:1' });
    expect(checkAllowlist(['10.0.0.0/8', '10.9.9.9/8'])).toEqual({ ok: true, ranges: ['10.0.0.0/8'] });
  });

  it('refuses what is not a range, naming the entry', () => {
    expect(parseRange('10.0.0.0/33')).toEqual({ ok: false, message: '"10.0.0.0/33" has an invalid prefix length: an IPv4 range ends in /0 to /32' });
    expect(parseRange('::/129')).toMatchObject({ ok: false });
    expect(parseRange('10.0.0.0/')).toMatchObject({ ok: false });
    expect(parseRange('10.0.0.0/-1')).toMatchObject({ ok: false });
    expect(parseRange('10.0.0.0/08x')).toMatchObject({ ok: false });
    expect(parseRange('fe80::1%eth0')).toMatchObject({ ok: false });
    expect(parseRange('example.com')).toEqual({ ok: false, message: '"example.com" is not an IPv4 or IPv6 address' });
    expect(parseRange('010.0.0.1')).toMatchObject({ ok: false });
    expect(parseRange('')).toMatchObject({ ok: false });
    expect(checkAllowlist(['10.0.0.0/8', 'nope', '::/200'])).toMatchObject({ ok: false, problems: [{ index: 1 }, { index: 2 }] });
    const tooMany = Array.from({ length: MAX_ALLOWLIST_RANGES + 1 }, (_, i) => `10.0.${i}.0/24`);
    expect(checkAllowlist(tooMany)).toEqual({ ok: false, problems: [{ index: null, message: 'An allowlist holds at most 100 ranges (this one has 101)' }] });
  });
});
