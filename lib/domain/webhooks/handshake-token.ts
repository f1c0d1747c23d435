import 'server-only';
import { timingSafeEqual } from 'node:crypto';
import { prisma } from '@/lib/platform/db';
import { AppError } from '@/lib/platform/http/errors';
import { handshakeTokenFingerprint, NOTION_TOKEN_PENDING } from '@/lib/ingress/live';
import { readAppliedCredential } from '@/lib/domain/webhooks/service';

// Notion's verification token: Notion posts it once, unsigned, and wants it
// pasted back into its dashboard. The ingress stores it as the provider
// secret and logs the handshake with NOTION_TOKEN_PENDING; the webhook page
// offers it to an admin exactly once. Which handshake entry still holds a
// token to show is the entry's detail (and, once shown, when), so no extra
// column is needed, and the token itself never enters the log (viewers read
// the log). The pending entry's detail carries a keyed fingerprint of the
// token the handshake delivered, and the reveal shows the webhook's credential
// only when it is that token: the credential can have changed since (a
// definition file may point the webhook's secretName at another team
// secret), and the reveal must never read back a write-only team secret.

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
  if (entry?.detail?.startsWith(NOTION_TOKEN_PENDING)) return { state: 'pending' };
  const shownAt = entry?.detail?.startsWith(SHOWN_PREFIX) ? new Date(entry.detail.slice(SHOWN_PREFIX.length)) : null;
  return shownAt && Date.now() - shownAt.getTime() < SHOWN_ALERT_MS ? { state: 'shown', shownAt } : null;
}

/** The token, the first time it is asked for; null afterwards (or when there is none). */
export async function revealHandshakeToken(factoryId: string, uid: string, db = prisma): Promise<string | null> {
  const entry = await db.delivery.findFirst({
    where: { status: 'handshake', detail: { startsWith: NOTION_TOKEN_PENDING }, webhook: { factoryId, uid } },
    orderBy: { receivedAt: 'desc' },
    select: { id: true, detail: true },
  });
  if (!entry?.detail) return null;
  const token = await readAppliedCredential(factoryId, uid, db);
  const delivered = /\(([0-9a-f]{32})\)$/.exec(entry.detail)?.[1];
  if (token === null || !delivered || !timingSafeEqual(Buffer.from(handshakeTokenFingerprint(token)), Buffer.from(delivered))) {
    throw new AppError(
      'conflict',
      'The webhook’s secret is no longer the token Notion’s handshake delivered, so it is not shown. To verify the subscription, delete this webhook, create a new one and paste its URL into Notion again.',
    );
  }
  // The update decides: of two admins clicking at once, one gets the token.
  const { count } = await db.delivery.updateMany({
    where: { id: entry.id, detail: entry.detail },
    data: { detail: `${SHOWN_PREFIX}${new Date().toISOString()}` },
  });
  return count > 0 ? token : null;
}
