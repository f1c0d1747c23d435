import 'server-only';
import { authFailureKey, consume, foldedAuthFailureLimit, foldedUnauthenticatedLimit, getLimiters } from '@/lib/ingress/rate-limit';
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
//
// A failed authentication is first counted against the failed-authentication
// budget of its webhook and client address; past that, it is refused the same
// way without taking from the webhook's budget, so one address's flood does
// not use up the entries that show other senders' failures.

type Unauthenticated = RejectedEntry & { webhookUid: string };

/**
 * Writes a metadata-only entry if the webhook's unauthenticated budget allows
 * it, else counts a refusal. On PostgreSQL both are one statement.
 * `always` writes the entry even past the budget (it still counts).
 * `answered`: the request is answered whatever the budget (a handshake, which
 * keeps its provider delivering): past the budget it writes nothing, and is
 * no refusal either.
 */
export async function recordUnauthenticated(entry: Unauthenticated, options: { always?: boolean; answered?: boolean } = {}): Promise<BudgetedWrite> {
  const { webhookUid, ...row } = entry;
  const budget = foldedUnauthenticatedLimit(webhookUid);
  if (budget) return recordRejectedCounted(row, budget, options);
  const allowed = await consume(getLimiters().unauthenticated, webhookUid);
  if (allowed.allowed || options.always) {
    await recordRejected(row);
    return { written: true };
  }
  if (options.answered) return { written: false, retryAfterSeconds: allowed.retryAfterSeconds, budget: 'unauthenticated' };
  return refused(row.webhookId, allowed.retryAfterSeconds, 'unauthenticated');
}

/**
 * A failed authentication from `address` (the trusted client address): under
 * that address's failed-authentication budget, then the webhook's
 * unauthenticated budget. On PostgreSQL the two counts and the entry or
 * refusal are one statement.
 */
export async function recordAuthFailure(entry: Unauthenticated, address: string): Promise<BudgetedWrite> {
  const { webhookUid, ...row } = entry;
  const authFailure = foldedAuthFailureLimit(webhookUid, address);
  const budget = foldedUnauthenticatedLimit(webhookUid);
  if (authFailure && budget) return recordRejectedCounted(row, budget, { authFailure });
  const allowed = await consume(getLimiters().authFailure, authFailureKey(webhookUid, address));
  if (!allowed.allowed) return refused(row.webhookId, allowed.retryAfterSeconds, 'auth_failure');
  return recordUnauthenticated(entry);
}

async function refused(webhookId: string, retryAfterSeconds: number, budget: 'unauthenticated' | 'auth_failure'): Promise<BudgetedWrite> {
  await recordRefusal(webhookId);
  return { written: false, retryAfterSeconds, budget };
}
