import 'server-only';
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { env } from '@/lib/platform/env';
import { forbiddenAddressReason, numericHostAddress } from '@/lib/platform/http/forbidden-address';
import { AppError } from '@/lib/platform/http/errors';

// Notification URLs are chosen by factory admins but fetched by the server,
// so they follow the repository URL rules (docs/security.md): https:// to
// public addresses only, unless the operator allows plain http:// or
// private addresses with TRIPLINE_NOTIFICATION_ALLOW. The address is checked
// when the URL is saved (a clear error for the admin) and again on every
// send, at connection time (the lookup below), so a host name that later
// resolves to a private address (DNS rebinding) is still refused.

export function checkNotificationUrl(url: string): URL {
  const access = env().notificationAccess;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && access.http)) {
    throw new AppError('validation_failed', 'Check the URL', {
      url: 'Refused: use an https:// URL (the operator allows http:// with TRIPLINE_NOTIFICATION_ALLOW=http)',
    });
  }
  if (parsed.username || parsed.password) {
    throw new AppError('validation_failed', 'Check the URL', { url: 'Refused: a notification URL cannot carry a user name or password' });
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const numeric = numericHostAddress(host);
  if (!access.private && (numeric === 'invalid' || (numeric !== null && forbiddenAddressReason(numeric) !== null) || (isIP(host) && forbiddenAddressReason(host) !== null) || host === 'localhost' || host.endsWith('.localhost'))) {
    throw new AppError('validation_failed', 'Check the URL', {
      url: 'Refused: private address. The host is a loopback, private, link-local or other non-public address (the operator allows these with TRIPLINE_NOTIFICATION_ALLOW=private)',
    });
  }
  return parsed;
}

/** A DNS lookup for outgoing notifications that refuses non-public addresses unless the operator allows them. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    if (!env().notificationAccess.private && list.some((entry) => forbiddenAddressReason(entry.address) !== null)) {
      return callback(Object.assign(new Error('Refused: the host resolves to a private address'), { code: 'EPRIVATE' }), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};
