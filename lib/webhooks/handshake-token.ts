import 'server-only';
import { prisma } from '@/lib/db';
import { readAppliedCredential } from '@/lib/webhooks/service';

// Notion's verification token: Notion posts it once, unsigned, and wants it
// pasted back into its dashboard. The ingress stores it as the provider
// secret and logs the handshake with NOTION_TOKEN_PENDING; the webhook page
// offers it to an admin exactly once. Which handshake entry still holds a
// token to show is the entry's detail, so no extra column is needed, and the
// token itself never enters the log (viewers read the log).

export const NOTION_TOKEN_PENDING = 'Notion verification token captured; not yet shown';
const NOTION_TOKEN_SHOWN = 'Notion verification token captured; shown to an admin';

const pending = (factoryId: string, uid: string) => ({ status: 'handshake' as const, detail: NOTION_TOKEN_PENDING, webhook: { factoryId, uid } });

export async function hasHandshakeTokenToShow(factoryId: string, uid: string, db = prisma): Promise<boolean> {
  return (await db.delivery.count({ where: pending(factoryId, uid) })) > 0;
}

/** The token, the first time it is asked for; null afterwards (or when there is none). */
export async function revealHandshakeToken(factoryId: string, uid: string, db = prisma): Promise<string | null> {
  // The update decides: of two admins clicking at once, one gets the token.
  const { count } = await db.delivery.updateMany({ where: pending(factoryId, uid), data: { detail: NOTION_TOKEN_SHOWN } });
  return count > 0 ? readAppliedCredential(factoryId, uid, db) : null;
}
