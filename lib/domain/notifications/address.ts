import 'server-only';
import type { LookupFunction } from 'node:net';
import { env } from '@/lib/platform/env';
import { checkOutboundUrl, guardedLookupFor } from '@/lib/platform/http/outbound';

// Notification URLs are chosen by factory admins but fetched by the server,
// so they follow the repository URL rules (docs/security.md): https:// to
// public addresses only, unless the operator allows plain http:// or
// private addresses with TRIPLINE_NOTIFICATION_ALLOW. The address is checked
// when the URL is saved (a clear error for the admin) and again on every
// send, at connection time (the lookup below), so a host name that later
// resolves to a private address (DNS rebinding) is still refused.

export function checkNotificationUrl(url: string): URL {
  return checkOutboundUrl(url, env().notificationAccess, 'TRIPLINE_NOTIFICATION_ALLOW', 'url', 'a notification URL');
}

/** A DNS lookup for outgoing notifications that refuses non-public addresses unless the operator allows them. */
export const guardedLookup: LookupFunction = guardedLookupFor(() => env().notificationAccess.private);
