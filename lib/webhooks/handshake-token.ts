import 'server-only';
import { prisma } from '@/lib/db';
import { NOTION_TOKEN_PENDING } from '@/lib/webhooks/live';
import { readAppliedCredential } from '@/lib/webhooks/service';

// Notion's verification token: Notion posts it once, unsigned, and wants it
// pasted back into its dashboard. The ingress stores it as the provider
// secret and logs the handshake with NOTION_TOKEN_PENDING; the webhook page
// offers it to an admin exactly once. Which handshake entry still holds a
// token to show is the entry's detail (and, once shown, when), so no extra
// column is needed, and the token itself never enters the log (viewers read
// the log).

const SHOWN_PREFIX = 'Notion verification token captured; shown to an admin at ';
// The page keeps the alert (and the revealed token in the browser) this long after the reveal,
// so the page's live refresh does not take the token away while the admin copies it.
const SHOWN_ALERT_MS = 15 * 60 * 1000;

export type HandshakeTokenState = { state: 'pending' } | { state: 'shown'; shownAt: Date } | null;

export async function handshakeTokenState(factoryId: string, uid: string, db = prisma): Promise<HandshakeTokenState> {
  const entry = await db.delivery.findFirst({
    where: { status: 'handshake', detail: { startsWith: 'Notion verification token captured' }, webhook: { factoryId, uid } },
    orderBy: { receivedAt: 'desc' },
    select: { detail: true },
  });
  if (entry?.detail === NOTION_TOKEN_PENDING) return { state: 'pending' };
  const shownAt = entry?.detail?.startsWith(SHOWN_PREFIX) ? new Date(entry.detail.slice(SHOWN_PREFIX.length)) : null;
  return shownAt && Date.now() - shownAt.getTime() < SHOWN_ALERT_MS ? { state: 'shown', shownAt } : null;
}

/** The token, the first time it is asked for; null afterwards (or when there is none). */
export async function revealHandshakeToken(factoryId: string, uid: string, db = prisma): Promise<string | null> {
  // The update decides: of two admins clicking at once, one gets the token.
  const { count } = await db.delivery.updateMany({
    where: { status: 'handshake', detail: NOTION_TOKEN_PENDING, webhook: { factoryId, uid } },
    data: { detail: `${SHOWN_PREFIX}${new Date().toISOString()}` },
  });
  return count > 0 ? readAppliedCredential(factoryId, uid, db) : null;
}
