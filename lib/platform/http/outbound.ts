import 'server-only';
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason, numericHostAddress } from '@/lib/platform/http/forbidden-address';
import { AppError } from '@/lib/platform/http/errors';

// Outbound connections to a URL a user chose (a notification destination, a
// provider's API base URL): https:// to public addresses only, unless the
// operator allows plain http:// or private addresses with the setting named
// in the messages (TRIPLINE_NOTIFICATION_ALLOW, TRIPLINE_CONNECTION_ALLOW).
// The address is checked when the URL is saved (a clear error for the admin)
// and again at connection time (the lookup below), so a host name that later
// resolves to a private address (DNS rebinding) is still refused. An IP
// literal never reaches the lookup (Node makes no DNS query for it), so
// callers check the URL again before each use.

export type OutboundAccess = { http: boolean; private: boolean };

/** The URL, parsed, or an AppError naming `field` when the operator's `setting` does not allow it. */
export function checkOutboundUrl(url: string, access: OutboundAccess, setting: string, field: string, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('validation_failed', 'Check the URL', { [field]: 'Enter a full URL, such as https://api.github.com' });
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && access.http)) {
    throw new AppError('validation_failed', 'Check the URL', {
      [field]: `Refused: use an https:// URL (the operator allows http:// with ${setting}=http)`,
    });
  }
  if (parsed.username || parsed.password) {
    throw new AppError('validation_failed', 'Check the URL', { [field]: `Refused: ${what} cannot carry a user name or password` });
  }
  if (!access.private && privateHostLiteral(parsed)) {
    throw new AppError('validation_failed', 'Check the URL', {
      [field]: `Refused: private address. The host is a loopback, private, link-local or other non-public address (the operator allows these with ${setting}=private)`,
    });
  }
  return parsed;
}

/**
 * Whether the URL's host names a non-public address by itself, with no DNS query: localhost, an IP
 * literal in any of its forms (decimal, octal, short) that is loopback, private, link-local or
 * otherwise not public, or a numeric form that is no address at all.
 */
export function privateHostLiteral(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const numeric = numericHostAddress(host);
  if (numeric === 'invalid' || (numeric !== null && forbiddenAddressReason(numeric) !== null)) return true;
  return (isIP(host) !== 0 && forbiddenAddressReason(host) !== null) || host === 'localhost' || host.endsWith('.localhost');
}

/** A DNS lookup that refuses non-public addresses unless `allowPrivate()` says the operator allows them. */
export function guardedLookupFor(allowPrivate: () => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      if (!allowPrivate() && list.some((entry) => forbiddenAddressReason(entry.address) !== null)) {
        return callback(Object.assign(new Error('Refused: the host resolves to a private address'), { code: 'EPRIVATE' }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
