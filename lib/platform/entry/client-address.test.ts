import { describe, expect, it } from 'vitest';
import { parseTrustedProxies, resolveClientAddress } from '@/lib/platform/entry/client-address';

describe('resolveClientAddress', () => {
  const none = parseTrustedProxies('');
  const proxies = parseTrustedProxies('loopback, 10.0.0.0/8 fd00::/8');

  it.each([
    ['an untrusted peer is the address, whatever X-Forwarded-For says', '203.0.113.9', '1.2.3.4', none, '203.0.113.9'],
    ['a dual-stack IPv4 peer is written as IPv4', '::ffff:203.0.113.9', undefined, none, '203.0.113.9'],
    ['loopback is not trusted unless configured', '127.0.0.1', '1.2.3.4', none, '127.0.0.1'],
    ['a trusted peer hands over to the right-most hop', '127.0.0.1', '1.2.3.4, 198.51.100.7', proxies, '198.51.100.7'],
    ['trusted hops are skipped from the right', '10.1.2.3', '6.6.6.6, 198.51.100.7, 10.0.0.5', proxies, '198.51.100.7'],
    ['a forged left-most hop is never chosen', '::1', 'evil, 198.51.100.7', proxies, '198.51.100.7'],
    ['a malformed hop before any untrusted one: unknown, never the proxy', '10.0.0.1', '198.51.100.7, not-an-ip', proxies, 'unknown'],
    ['a malformed hop behind a trusted one: unknown', '10.0.0.1', 'not-an-ip, 10.0.0.7', proxies, 'unknown'],
    ['all hops trusted: the left-most of them', '127.0.0.1', '10.0.0.9, 10.0.0.8', proxies, '10.0.0.9'],
    ['ports and brackets are stripped', '127.0.0.1', '[2001:db8::1]:443', proxies, '2001:db8::1'],
    ['repeated headers count as one list', '127.0.0.1', ['1.1.1.1', '198.51.100.7'], proxies, '198.51.100.7'],
    ['a trusted peer without the header names no client: unknown, which an allowlist refuses', '10.0.0.2', undefined, proxies, 'unknown'],
    ['an empty header names none either', '10.0.0.2', '', proxies, 'unknown'],
    ['IPv6 unique-local proxies', 'fd00::1', '2001:db8::5', proxies, '2001:db8::5'],
  ])('%s', (_name, peer, forwarded, trusted, expected) => {
    expect(resolveClientAddress(peer, forwarded, trusted)).toBe(expected);
  });

  it('refuses a bad TRIPLINE_TRUSTED_PROXIES entry', () => {
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/prefix/);
    expect(() => parseTrustedProxies('proxy.internal')).toThrow(/not an address/);
  });
});
