import 'server-only';
import { consume, foldedUnauthenticatedLimit, getLimiters } from '@/lib/ingress/rate-limit';
import { recordRefusal, recordRejected, recordRejectedCounted, type BudgetedWrite, type RejectedEntry } from '@/lib/ingress/record';

// Every request that writes a log entry is under a budget. Accepted,
// duplicate and invalid-JSON entries come from requests with valid
// credentials and count against the delivery rate. Every other entry is
// written before or without valid credentials (too large, rejected auth,
// handshakes, Dropbox's challenge): those count against the webhook's budget
// of unauthenticated entries, whatever the client address, so a flood from
// any number of addresses writes at most that many rows a minute. Past it the
// request gets 429 with Retry-After and writes nothing but one more count in
// the minute's "refused" summary entry, so the dashboard still shows that
// (and how many) requests were refused.

/**
 * Writes a metadata-only entry if the webhook's unauthenticated budget allows
 * it, else counts a refusal. On PostgreSQL both are one statement.
 * `always` writes the entry even past the budget (it still counts).
 */
export async function recordUnauthenticated(
  entry: RejectedEntry & { webhookUid: string },
  options: { always?: boolean } = {},
): Promise<BudgetedWrite> {
  const { webhookUid, ...row } = entry;
  const budget = foldedUnauthenticatedLimit(webhookUid);
  if (budget) return recordRejectedCounted(row, budget, options.always);
  const allowed = await consume(getLimiters().unauthenticated, webhookUid);
  if (allowed.allowed || options.always) {
    await recordRejected(row);
    return { written: true };
  }
  await recordRefusal(row.webhookId);
  return { written: false, retryAfterSeconds: allowed.retryAfterSeconds };
}
