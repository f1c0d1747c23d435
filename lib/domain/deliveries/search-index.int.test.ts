import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { lockKeys } from '@/lib/platform/db/locks';
import { listDeliveries, logSearchLimits } from '@/lib/domain/deliveries/service';
import { loadDeliveryLog } from '@/lib/adapters/pages/delivery-log';
import { appError } from '@/tests/support/app-error';
import { mergeSearchPendingList, SEARCH_INDEX } from '@/lib/domain/deliveries/search-index';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAccepted } from '@/lib/ingress/record';
import { createTestDatabase, testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// The search index's pending list, merged by housekeeping instead of by the
// insert that fills it (lib/domain/deliveries/search-index.ts): what was pending is
// merged, search finds the same entries before and after, instances take
// turns, and a missing index is not an error.

/** A database with one webhook; `accept(n)` records delivery d-n with about 1 KB of distinct words ("periwinkle" in d-7 only). */
function webhookLog(kind: TestDatabaseKind) {
  const log = { database: undefined as unknown as TestDatabase, factoryId: '', webhookId: '', uid: `wh_merge_${kind}` };
  beforeAll(async () => {
    log.database = await createTestDatabase(kind);
    setDatabase(log.database);
    const db = log.database.prisma;
    const user = await createUser({ email: 'm@example.com', password: 'a long enough password' }, db);
    log.factoryId = (await createFactory(user.id, { name: 'Merge', slug: 'merge' }, db)).id;
    log.webhookId = (await db.webhook.create({ data: { factoryId: log.factoryId, uid: log.uid, name: 'hook', secretName: 'S' }, select: { id: true } })).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await log.database?.drop();
  });
  const accept = (n: number) => {
    const words = Array.from({ length: 60 }, (_, i) => `w${n}x${i}${'abcdefghij'[i % 10]}`).join(' ');
    const body = JSON.stringify({ n, marker: n === 7 ? 'periwinkle' : 'plain', words });
    return recordAccepted({
      webhookId: log.webhookId,
      factoryId: log.factoryId,
      identity: { deliveryId: `d-${n}`, source: 'service_header' },
      size: body.length,
      body,
      headers: {},
      remoteAddress: null,
      runQueueLimit: 10_000,
      runs: [],
    });
  };
  const search = async (q: string) => (await listDeliveries(log.factoryId, log.uid, { q, limit: 50 })).deliveries.map((d) => d.deliveryId);
  return { log, accept, search };
}

describe.each(testDatabaseKinds())('merging the search index pending list on %s', (kind) => {
  const { log, accept, search } = webhookLog(kind);

  it('merges what is pending, and search finds the same entries before and after', async () => {
    await mergeSearchPendingList(log.database.prisma);
    // Fewer bodies than the 256 kB limit holds: they stay pending.
    for (let n = 0; n < 40; n++) await accept(n);
    expect(await search('periwinkle')).toEqual(['d-7']);

    expect(await mergeSearchPendingList(log.database.prisma)).toBeGreaterThan(0);
    expect(await mergeSearchPendingList(log.database.prisma)).toBe(0);
    expect(await search('periwinkle')).toEqual(['d-7']);
    expect(await search('w12x3d')).toEqual(['d-12']);
  });

  it('keeps a pending list of 4 MB on PostgreSQL, merged by housekeeping, and of 256 kB on PGlite', async () => {
    const [row] = await log.database.prisma.$queryRawUnsafe<[{ limit: string; options: string[] | null }]>(
      `SELECT current_setting('gin_pending_list_limit') AS "limit", (SELECT reloptions FROM pg_class WHERE relname = '${SEARCH_INDEX}') AS "options"`,
    );
    // The index has no value of its own (migration search_pending_list_per_database): the session's applies.
    expect(row.options).toBeNull();
    expect(row.limit).toBe(kind === 'pglite' ? '256kB' : '4MB');
  });

  it('does nothing without the index (an operator rebuilding it)', async () => {
    await log.database.prisma.$executeRawUnsafe(`DROP INDEX "${SEARCH_INDEX}"`);
    await accept(200);
    expect(await mergeSearchPendingList(log.database.prisma)).toBeNull();
  });
});

// Several instances share one PostgreSQL database.
describe.each(testDatabaseKinds().filter((kind) => kind === 'postgres'))('instances merging on %s', (kind) => {
  const { log, accept } = webhookLog(kind);

  it('skips its turn while another instance merges', async () => {
    await accept(100);
    const other = new pg.Client({ connectionString: log.database.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock($1)', [lockKeys.searchMerge]);
      expect(await mergeSearchPendingList(log.database.prisma)).toBeNull();
      await other.query('COMMIT');
      expect(await mergeSearchPendingList(log.database.prisma)).toBeGreaterThan(0);
    } finally {
      await other.end();
    }
  });
});

// A search of payloads is under a time limit (logSearchLimits): text in no body, made of words in every body, reads them all.
describe.each(testDatabaseKinds().filter((kind) => kind === 'postgres'))('a search of payloads past its time limit on %s', (kind) => {
  const { log } = webhookLog(kind);

  it('is refused naming q and saying how to narrow it, not left to read the whole log', async () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    await log.database.prisma.delivery.createMany({
      data: Array.from({ length: 3_000 }, (_, n) => ({ webhookId: log.webhookId, deliveryId: `s-${n}`, identitySource: 'service_header' as const, status: 'accepted' as const, size: 700, body: JSON.stringify({ n, marker: 'plain', words }) })),
    });
    const limit = logSearchLimits.timeoutMs;
    // Every body has the trigrams of "plain" and "words"; none has the text "plain words".
    logSearchLimits.timeoutMs = 1;
    try {
      const refused = await appError(listDeliveries(log.factoryId, log.uid, { q: 'plain words', limit: 50 }));
      expect(refused).toMatchObject({ code: 'validation_failed', fields: { q: expect.stringMatching(/narrow the search with a time range/) } });
    } finally {
      logSearchLimits.timeoutMs = limit;
    }
    expect((await listDeliveries(log.factoryId, log.uid, { q: 'plain words', limit: 50 })).deliveries).toEqual([]);
  });

  it('is said under the webhook page\'s search box, where the page was an error page, and with a cursor is not called a stale link', async () => {
    const limit = logSearchLimits.timeoutMs;
    logSearchLimits.timeoutMs = 1;
    try {
      const { nextCursor } = await listDeliveries(log.factoryId, log.uid, { limit: 25 });
      expect(nextCursor).not.toBeNull();
      for (const cursor of [undefined, nextCursor!]) {
        const view = await loadDeliveryLog(log.factoryId, log.uid, '/f/merge/automations/webhooks/x', { q: 'plain words', cursor });
        expect(view.page).toBeNull();
        expect(view.searchProblem).toMatch(/^This text is in too few payloads to find within 0 s: narrow the search/);
      }
    } finally {
      logSearchLimits.timeoutMs = limit;
    }
    const view = await loadDeliveryLog(log.factoryId, log.uid, '/f/merge/automations/webhooks/x', { q: 'plain words' });
    expect(view).toMatchObject({ page: { deliveries: [] } });
    expect(view.searchProblem).toBeUndefined();
  });
});
