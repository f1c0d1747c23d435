import 'server-only';
import { getDatabase, prisma, type Db } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { budgetKey, existingLimiters } from '@/lib/ingress/rate-limit';

// The delivery rate limit's 429s write no log entry (the ingress answers them
// without a write, to stay cheap under a flood). Health learns of them from
// the limiter's own counters instead, read by the housekeeping job: a counter
// past its budget means requests were refused in its window. A counter row
// keeps its count until the webhook's next request after the window, so a
// job running at least once a minute sees every spent window.

type Seen = { webhookId: string; at: Date };

/** Webhooks whose delivery budget was seen spent, with when. */
export async function spentDeliveryBudgets(webhooks: { id: string; uid: string }[], now: Date = new Date()): Promise<Seen[]> {
  if (webhooks.length === 0) return [];
  const limit = env().deliveryRateLimit;
  // PostgreSQL: the counters are rows of the shared rate_limits table (every instance's). The spent ones are
  // read by the budget's prefix, not by a list of every webhook's key: the table holds the keys used in the
  // last hour or so, and a list of 20,000 keys cost more to send than the scan.
  if (getDatabase().adapter.pool) {
    const byKey = new Map(webhooks.map((w) => [budgetKey('delivery', w.uid), w.id]));
    const rows = await prisma.$queryRawUnsafe<{ key: string; expire: bigint | number | null }[]>(
      'SELECT "key", "expire" FROM "rate_limits" WHERE starts_with("key", $1) AND "points" > $2',
      budgetKey('delivery', ''),
      limit,
    );
    return rows
      .filter((row) => byKey.has(row.key))
      .map((row) => ({ webhookId: byKey.get(row.key)!, at: new Date(Math.min(now.getTime(), Number(row.expire ?? now.getTime()))) }));
  }
  // PGlite: this process's in-memory limiter, if the ingress has created it (otherwise nothing was counted yet).
  const limiter = existingLimiters()?.delivery;
  if (!limiter) return [];
  const seen: Seen[] = [];
  for (const webhook of webhooks) {
    const state = await limiter.get(webhook.uid);
    if (state && state.consumedPoints > limit) seen.push({ webhookId: webhook.id, at: now });
  }
  return seen;
}

/** Notes when each webhook's budget was seen spent: one statement for all of them. */
export async function recordSpentBudgets(seen: Seen[], db: Db = prisma): Promise<void> {
  if (seen.length === 0) return;
  await db.$executeRawUnsafe(
    `INSERT INTO "WebhookHealth" ("webhookId", "state", "since", "rateLimitedAt", "updatedAt")
     SELECT s.id, 'healthy', s.at, s.at, $3 FROM unnest($1::text[], $2::timestamp(3)[]) AS s(id, at)
     ON CONFLICT ("webhookId") DO UPDATE SET "rateLimitedAt" = excluded."rateLimitedAt", "updatedAt" = excluded."updatedAt"`,
    seen.map((s) => s.webhookId),
    seen.map((s) => s.at.toISOString()),
    new Date(),
  );
}
