import 'server-only';
import { prisma, type Db } from '@/lib/platform/db';
import { lockKeys } from '@/lib/platform/db/locks';

// The log's search index (Delivery_search_trgm_idx, a GIN trigram index; see
// migration delivery_search_by_webhook) takes a new body's entries into its
// pending list, an append that costs the insert little. Merging the list
// into the index's trees is the expensive part: about 1.5 ms of database CPU
// per 1.8 KB body (docs/benchmarks.md). Left to PostgreSQL, the insert that
// finds the list over its limit merges it, inside the ingress's statement,
// and every delivery of that group commit waits for it: that was the
// ingress's p99 on a full log.
//
// On PostgreSQL this housekeeping job merges the list instead, every few
// seconds, so the list stays under its limit and no insert merges. An insert
// that does find it over the limit while the job merges does not wait: it
// skips its merge (PostgreSQL's ginInsertCleanup). Instances take turns under
// an advisory lock; one that finds it taken skips its turn. Merging more
// bodies at once is cheaper per body (keys shared by many entries are
// written once).
//
// PGlite has one connection on the server's own thread: the merge would hold
// up the ingress all the same, so there the inserts keep merging small lists.

export const SEARCH_INDEX = 'Delivery_search_trgm_idx';

/**
 * Merges the search index's pending list; returns the pending pages merged,
 * or null when another instance is merging, or the index is missing, not
 * valid (an operator rebuilding it, docs/operations.md) or not this user's
 * (only its owner may merge it; the table's owner is the index's).
 */
export async function mergeSearchPendingList(db: Db = prisma): Promise<number | null> {
  return db.$transaction(async (tx) => {
    const [row] = await tx.$queryRawUnsafe<{ pages: bigint | null }[]>(
      `SELECT gin_clean_pending_list(i."indexrelid") AS "pages"
         FROM pg_index i JOIN pg_class c ON c."oid" = i."indexrelid"
        WHERE i."indexrelid" = to_regclass($1) AND i."indisvalid" AND pg_has_role(c."relowner", 'USAGE')
          AND pg_try_advisory_xact_lock($2::bigint)`,
      `"${SEARCH_INDEX}"`,
      lockKeys.searchMerge,
    );
    return row?.pages == null ? null : Number(row.pages);
  });
}
