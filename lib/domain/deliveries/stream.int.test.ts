import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { parseSince, streamDeliveriesSchema } from '@/lib/domain/deliveries/schemas';
import {
  deliveryStream,
  openStreamLease,
  STREAM_PAGE_ENTRIES,
  STREAMS_PER_FACTORY,
  STREAMS_PER_TOKEN,
  STREAMS_PER_USER,
  streamEntryJson,
  streamPage,
  streamStart,
  type StreamItem,
  type StreamOwner,
  type StreamPosition,
} from '@/lib/domain/deliveries/stream';
import { deliveryEventStream } from '@/lib/domain/deliveries/stream-response';
import { announceEntry } from '@/lib/domain/deliveries/wake';
import type { FactoryContext } from '@/lib/domain/auth/guard';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAccepted, recordRejected } from '@/lib/ingress/record';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { AppError } from '@/lib/platform/http/errors';
import { budget } from '@/scripts/speed.mjs';

// The stream of a webhook's log: its order, its pages, where it starts and
// resumes, its filters, and the case a timestamp cursor gets wrong: an entry
// that commits after a later one was already read.

describe.each(testDatabaseKinds())('the stream of the log on %s', (kind) => {
  // Cases about concurrent transactions need a second connection, which the embedded database
  // (one connection) does not have: they exist only on PostgreSQL, never as skipped tests.
  const postgresOnly = (name: string, fn: () => Promise<void>) => {
    if (kind === 'postgres') it(name, fn);
  };
  let database: TestDatabase;
  let factoryId: string;
  let webhookId: string;
  const uid = `wh_stream_${kind}`;
  let n = 0;

  async function accept(body: unknown, extra: { eventType?: string | null; signatureHeaders?: Record<string, string> } = {}) {
    const text = JSON.stringify(body);
    n += 1;
    const outcome = await recordAccepted({
      webhookId,
      factoryId,
      identity: { deliveryId: `d-${n}`, source: 'service_header' },
      size: Buffer.byteLength(text),
      body: text,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': '[redacted]' },
      signatureHeaders: extra.signatureHeaders ?? null,
      eventType: extra.eventType ?? null,
      remoteAddress: null,
      runQueueLimit: 10_000,
      runs: [],
    });
    if (outcome.limited) throw new Error('limited');
    return outcome.id;
  }

  /** A metadata-only entry written on a connection of the test's own, so that its transaction can stay open. */
  async function insertOn(client: pg.Client, id: string) {
    await client.query(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail") VALUES ($1, $2, $1, 'request_id', 'rejected_auth', 0, now(), 'raw')`,
      [id, webhookId],
    );
  }

  /** Every entry after `position`, page by page, as the stream reads them. */
  async function drain(position: StreamPosition, filters = {}) {
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      const page = await streamPage(webhookId, position, filters);
      pages += 1;
      seen.push(...page.entries.map((entry) => entry.id));
      position = page.position;
      if (!page.more) return { seen, pages, position };
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 's@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Stream', slug: 'stream' }, db)).id;
    webhookId = (await db.webhook.create({ data: { factoryId, uid, name: 'hook', secretName: 'S' }, select: { id: true } })).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('starts after the newest entry, sends each later entry once in the order written, and resumes after any entry', async () => {
    await accept({ before: true });
    const { position } = await streamStart(factoryId, uid, {});
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await accept({ i }));
    const all = await drain(position);
    expect(all.seen).toEqual(ids);
    // Resuming after the second entry gives exactly the three after it, and a read at the end gives nothing.
    const resumed = await streamStart(factoryId, uid, { after: ids[1] });
    expect((await drain(resumed.position)).seen).toEqual(ids.slice(2));
    expect((await drain(all.position)).seen).toEqual([]);
  });

  it('orders entries that share a timestamp by their id, stably', async () => {
    // One transaction: both entries have the same now() and the same transaction id.
    const { position } = await streamStart(factoryId, uid, {});
    const rows = ['dl_same_b', 'dl_same_a'];
    await database.prisma.$transaction(async (tx) => {
      for (const id of rows) {
        await tx.$executeRawUnsafe(
          `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail") VALUES ($1, $2, $1, 'request_id', 'rejected_auth', 0, now(), 'x')`,
          id,
          webhookId,
        );
      }
    });
    const times = await database.prisma.delivery.findMany({ where: { id: { in: rows } }, select: { receivedAt: true } });
    expect(times[0]!.receivedAt.getTime()).toBe(times[1]!.receivedAt.getTime());
    expect((await drain(position)).seen).toEqual(['dl_same_a', 'dl_same_b']);
    const afterA = await streamStart(factoryId, uid, { after: 'dl_same_a' });
    expect((await drain(afterA.position)).seen).toEqual(['dl_same_b']);
  });

  it('serves a long catch-up in pages of 100 entries', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const ids: string[] = [];
    for (let i = 0; i < 2 * STREAM_PAGE_ENTRIES + 10; i++) ids.push(await accept({ page: i }));
    const first = await streamPage(webhookId, position, {});
    expect(first.entries).toHaveLength(STREAM_PAGE_ENTRIES);
    expect(first.more).toBe(true);
    const all = await drain(position);
    expect(all.seen).toEqual(ids);
    expect(all.pages).toBe(3);
  });

  it('cuts a page at 4 MiB of bodies, and still sends one larger entry', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const big = 'x'.repeat(250_000);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await accept({ big, i }));
    const first = await streamPage(webhookId, position, {});
    expect(first.entries.length).toBe(16);
    expect(first.more).toBe(true);
    expect((await drain(position)).seen).toEqual(ids);
  });

  it('filters by status and event type, and moves past entries that do not match', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const opened = await accept({ a: 1 }, { eventType: 'pull_request.opened' });
    await accept({ a: 2 }, { eventType: 'push' });
    await recordRejected({ webhookId, status: 'rejected_auth', identity: { deliveryId: 'r1', source: 'request_id' }, size: 3, detail: 'no', remoteAddress: null });
    const closed = await accept({ a: 3 }, { eventType: 'pull_request.closed' });
    const byType = await drain(position, { event: 'pull_request.*' });
    expect(byType.seen).toEqual([opened, closed]);
    // The position passed the push and the rejection: the next read starts after the last entry scanned.
    expect(byType.position.id).toBe(closed);
    const rejected = await drain(position, { status: 'rejected_auth' });
    expect(rejected.seen).toHaveLength(1);
    const since = await streamStart(factoryId, uid, { since: new Date(Date.now() - 60_000) });
    expect((await drain(since.position, { since: new Date(Date.now() - 60_000), event: 'push' })).seen).toHaveLength(1);
  });

  it('says how far it read past entries its filters leave out, a page at a time, so a reconnect resumes past them', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    // One statement, one transaction: read in the order of their ids.
    const skipped = Array.from({ length: 2 * STREAM_PAGE_ENTRIES + 10 }, (_, i) => `dl_skip${kind}${String(i).padStart(4, '0')}`);
    await database.prisma.delivery.createMany({
      data: skipped.map((id) => ({ id, webhookId, deliveryId: id, identitySource: 'request_id' as const, status: 'rejected_auth' as const, size: 3, detail: 'no' })),
    });
    const wanted = await accept({ wanted: true });
    const controller = new AbortController();
    const stream = deliveryStream({ webhookId, position, filters: { status: 'accepted' }, signal: controller.signal, pollMs: 60_000, heartbeatMs: 60_000, lifetimeMs: 120_000 });
    const items: StreamItem[] = [];
    for (;;) {
      const item = (await stream.next()).value as StreamItem;
      items.push(item);
      if (item.kind === 'entry') break;
    }
    controller.abort();
    // Two full pages of rejected entries: a position after each, then the third page's accepted entry.
    expect(items.map((item) => (item.kind === 'progress' ? `progress ${item.after}` : item.kind === 'entry' ? `entry ${item.entry.id}` : item.kind))).toEqual([
      `progress ${skipped[STREAM_PAGE_ENTRIES - 1]}`,
      `progress ${skipped[2 * STREAM_PAGE_ENTRIES - 1]}`,
      `entry ${wanted}`,
    ]);
    // A reconnect after the last position reads only what follows it.
    const resumed = await streamStart(factoryId, uid, { after: skipped[2 * STREAM_PAGE_ENTRIES - 1] });
    expect((await drain(resumed.position, { status: 'accepted' })).seen).toEqual([wanted]);
  });

  it('starts a stream from a time at the entry whose transaction took its ID first, not at the one received first', async () => {
    // Two entries received after `since` (in an hour, clear of the other tests' entries): the one received
    // second took its transaction ID first, as a transaction that began later but wrote sooner does.
    const base = BigInt((await database.prisma.delivery.findFirstOrThrow({ where: { webhookId, txid: { not: null } }, orderBy: { txid: 'desc' }, select: { txid: true } })).txid!);
    const since = new Date(Date.now() + 3_600_000);
    const rows = [
      { id: `dl_since_first${kind}`, receivedAt: new Date(since.getTime() + 1_000), txid: base },
      { id: `dl_since_second${kind}`, receivedAt: new Date(since.getTime() + 2_000), txid: base - 1n },
    ];
    await database.prisma.delivery.createMany({ data: rows.map((row) => ({ ...row, webhookId, deliveryId: row.id, identitySource: 'request_id' as const, status: 'rejected_auth' as const, size: 0 })) });
    try {
      const start = await streamStart(factoryId, uid, { since });
      expect((await drain(start.position, { since })).seen).toEqual([`dl_since_second${kind}`, `dl_since_first${kind}`]);
    } finally {
      await database.prisma.delivery.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
    }
  });

  it('refuses to resume after an entry that is not in the log, saying what to do', async () => {
    await expect(streamStart(factoryId, uid, { after: 'dl_gone' })).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/not in this webhook's log.*since=/) });
    await expect(streamStart(factoryId, 'wh_nope', {})).rejects.toMatchObject({ code: 'not_found' });
    expect(streamDeliveriesSchema.safeParse({ since: 'yesterday' }).error?.issues[0]?.message).toMatch(/duration/);
    expect(parseSince('1h', 10 * 3_600_000)).toEqual(new Date(9 * 3_600_000));
    expect(parseSince('400d')).toMatch(/at most 366 days/);
  });

  it('sends the original signature headers only to callers who may replay', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    await accept({ signed: true }, { signatureHeaders: { 'x-hub-signature-256': 'sha256=abc' } });
    const [entry] = (await streamPage(webhookId, position, {})).entries;
    const reader = streamEntryJson(entry!, { signatures: false });
    expect(reader).toMatchObject({ body: '{"signed":true}', bodyEncoding: 'utf8', signatureHeaders: 'redacted', headers: { 'x-hub-signature-256': '[redacted]' } });
    expect(streamEntryJson(entry!, { signatures: true })).toMatchObject({ signatureHeaders: 'original', headers: { 'x-hub-signature-256': 'sha256=abc', 'content-type': 'application/json' } });
  });

  it('reads only as fast as it is consumed, wakes on an announcement, beats and ends', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    for (let i = 0; i < 3 * STREAM_PAGE_ENTRIES; i++) await accept({ slow: i });
    let pages = 0;
    const controller = new AbortController();
    // Its poll and heartbeat are far off, so only an announcement can make it read again soon.
    const idleMs = 30_000;
    const stream = deliveryStream({ webhookId, position, filters: {}, signal: controller.signal, onPage: () => (pages += 1), pollMs: idleMs, heartbeatMs: idleMs, lifetimeMs: 5 * idleMs });
    // A consumer that takes one item and then stops reading: one page read, not three.
    expect((await stream.next()).value).toMatchObject({ kind: 'entry' });
    // About time passing: the stream must not read ahead while nobody reads.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pages).toBe(1);
    for (let i = 1; i < 3 * STREAM_PAGE_ENTRIES; i++) expect((await stream.next()).value?.kind).toBe('entry');
    // Idle: the fourth read (the third page was full) finds nothing, and the stream waits right after it. An announcement
    // then wakes it long before its poll; then the end on abort.
    const next = stream.next();
    await vi.waitFor(() => expect(pages).toBe(4), { timeout: budget(5_000) });
    const id = await accept({ woken: true });
    const started = Date.now();
    announceEntry(webhookId);
    const woken = (await next).value as StreamItem;
    expect(woken).toMatchObject({ kind: 'entry', entry: { id } });
    const wokenMs = Date.now() - started;
    console.log(`the stream sent the announced entry ${wokenMs} ms after the announcement (its next poll: ${idleMs} ms)`);
    expect(wokenMs).toBeLessThan(idleMs / 2);
    controller.abort();
    expect((await stream.next()).value).toEqual({ kind: 'end', reason: 'aborted' });
    expect((await stream.next()).done).toBe(true);
  });

  it('beats after its heartbeat interval without an entry', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const controller = new AbortController();
    const stream = deliveryStream({ webhookId, position, filters: {}, signal: controller.signal, pollMs: 60_000, heartbeatMs: 400, lifetimeMs: 5_000 });
    expect((await stream.next()).value).toEqual({ kind: 'heartbeat' });
    controller.abort();
    expect((await stream.next()).value).toEqual({ kind: 'end', reason: 'aborted' });
  });

  it('ends at its lifetime', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const stream = deliveryStream({ webhookId, position, filters: {}, signal: new AbortController().signal, pollMs: 50, lifetimeMs: 200 });
    expect((await stream.next()).value).toEqual({ kind: 'end', reason: 'lifetime' });
  });

  /** A caller of its own account in a factory of its own, unless told otherwise. */
  const owner = (key: string, of: Partial<StreamOwner> = {}): StreamOwner => ({
    key: `${key}-${kind}`,
    kind: 'token',
    userId: `user-${key}-${kind}`,
    factory: { id: `factory-${key}-${kind}`, name: 'Acme Ops' },
    ...of,
  });
  /** The refusal a lease gets, which must be a 429 with its Retry-After. */
  const refusal = (who: StreamOwner): AppError => {
    let refused: unknown;
    try {
      openStreamLease(who).release();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    return refused as AppError;
  };

  it('cuts the response of a client that stops reading once its stream should end, and gives its slot back', async () => {
    const caller = owner('unread', { factory: { id: factoryId, name: 'Stream' } });
    const context = { user: { id: caller.userId }, factory: caller.factory, can: () => true } as unknown as FactoryContext;
    const response = await deliveryEventStream({ request: new Request('http://tripline.test/'), context, caller, uid, input: {}, lifetimeMs: budget(500), unreadGraceMs: 200 });
    // Never read: all five slots but this one are free (taken at once, well within its lifetime), then all five once the response is cut.
    const four = Array.from({ length: STREAMS_PER_TOKEN - 1 }, () => openStreamLease(caller));
    expect(() => openStreamLease(caller)).toThrow(/already has 5/);
    for (let i = 0; i < 5; i++) await accept({ unread: i });
    // Its slot comes back once the response is cut (its lifetime, then 200 ms of grace).
    const fifth = await vi.waitFor(() => openStreamLease(caller), { timeout: budget(5_000), interval: 50 });
    for (const lease of [...four, fifth]) lease.release();
    await expect(response.text()).rejects.toThrow(/stopped reading/);
  });

  it('lets go of the log reader however the stream ends: one that ran its lifetime leaves no wake-up listener behind', async () => {
    const caller = owner('lifetime', { factory: { id: factoryId, name: 'Stream' } });
    const context = { user: { id: caller.userId }, factory: caller.factory, can: () => true } as unknown as FactoryContext;
    const wakeListeners = () => (globalThis as Record<symbol, Map<string, Set<unknown>>>)[Symbol.for('tripline.deliveries.wake')]?.get(webhookId)?.size ?? 0;
    // Readers this file's other tests hold themselves (deliveryStream without the response) stay; this one must not.
    const before = wakeListeners();
    const response = await deliveryEventStream({ request: new Request('http://tripline.test/'), context, caller, uid, input: {}, lifetimeMs: budget(300) });
    expect(await response.text()).toContain('event: end\ndata: {"reason":"lifetime"}');
    await vi.waitFor(() => expect(wakeListeners()).toBe(before), { timeout: budget(2_000), interval: 20 });
  });

  it('ends at once a stream whose request was gone (or the server shutting down) before its start was read', async () => {
    const caller = owner('gone', { factory: { id: factoryId, name: 'Stream' } });
    const context = { user: { id: caller.userId }, factory: caller.factory, can: () => true } as unknown as FactoryContext;
    const gone = new AbortController();
    gone.abort();
    const response = await deliveryEventStream({ request: new Request('http://tripline.test/', { signal: gone.signal }), context, caller, uid, input: {} });
    // Without the check, it ran its 30 minutes, holding a slot (and, at a shutdown, the drain).
    expect(await response.text()).toBe('retry: 2000\n\n');
    openStreamLease(caller).release();
  });

  it('checks its caller again while open: once the token, session, account or role no longer allows it, it ends as revoked and reads no further entry', async () => {
    const caller = owner('revoked', { factory: { id: factoryId, name: 'Stream' } });
    const context = { user: { id: caller.userId }, factory: caller.factory, can: () => true } as unknown as FactoryContext;
    let allowed = true;
    let checks = 0;
    const reauthorize = async () => {
      checks += 1;
      if (!allowed) throw new AppError('unauthorized', 'The API token or session was revoked, or its account disabled');
      return context;
    };
    // recheckMs 0: a check before every entry or heartbeat it hands on.
    const response = await deliveryEventStream({ request: new Request('http://tripline.test/'), context, caller, uid, input: {}, reauthorize, recheckMs: 0 });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const next = async () => (await reader.read()).value ?? '';
    expect(await next()).toBe('retry: 2000\n\n');
    const first = await accept({ revoked: 1 });
    announceEntry(webhookId);
    expect(await next()).toContain(`id: ${first}\nevent: delivery`);
    expect(checks).toBeGreaterThanOrEqual(1);
    // The token is revoked (or the account disabled, or the member removed): the next entry is not sent.
    allowed = false;
    const second = await accept({ revoked: 2 });
    announceEntry(webhookId);
    const last = await next();
    expect(last).toBe('event: end\ndata: {"reason":"revoked"}\n\n');
    expect(last).not.toContain(second);
    expect((await reader.read()).done).toBe(true);
    // Its slot is free again.
    expect(() => Array.from({ length: STREAMS_PER_TOKEN }, () => openStreamLease(caller)).forEach((lease) => lease.release())).not.toThrow();
  });

  it('limits the open streams of one token, and gives a slot back once', () => {
    const leases = Array.from({ length: STREAMS_PER_TOKEN }, () => openStreamLease(owner('owner')));
    expect(refusal(owner('owner')).message).toMatch(/^This API token already has 5 open streams/);
    expect(refusal(owner('owner')).retryAfterSeconds).toBe(5);
    expect(refusal(owner('owner', { kind: 'session' })).message).toMatch(/^This browser session already has 5 open streams/);
    expect(openStreamLease(owner('other')).release).toBeTypeOf('function');
    leases[0]!.release();
    leases[0]!.release();
    const again = openStreamLease(owner('owner'));
    expect(() => openStreamLease(owner('owner'))).toThrow(/already has 5/);
    for (const lease of [...leases, again]) lease.release();
  });

  it('limits the open streams of one account across its tokens and sessions, wherever they read', () => {
    expect(STREAMS_PER_USER).toBe(10);
    const account = { userId: `user-many-tokens-${kind}` };
    // Two tokens' worth, in two factories: the account's count spans its factories.
    const first = Array.from({ length: 5 }, () => openStreamLease(owner('token-a', account)));
    const second = Array.from({ length: 5 }, () => openStreamLease(owner('token-b', { ...account, factory: { id: `elsewhere-${kind}`, name: 'Globex' } })));
    const refused = refusal(owner('token-c', account));
    expect(refused.message).toBe(
      'Your account already has 10 open streams of delivery logs on this server, counting all its API tokens and browser sessions, the most one account may have: close one first',
    );
    expect(refused.retryAfterSeconds).toBe(5);
    expect(refusal(owner('session-d', { ...account, kind: 'session' })).message).toMatch(/^Your account already has 10/);
    // Another member of the same factory is not held back; one stream closed frees a slot for any of the account's callers.
    const colleague = openStreamLease(owner('colleague', { factory: owner('token-a').factory }));
    first.pop()!.release();
    const third = openStreamLease(owner('token-c', account));
    expect(refusal(owner('token-a', account)).message).toMatch(/^Your account already has 10/);
    for (const lease of [...first, ...second, third, colleague]) lease.release();
  });

  it('limits the open streams of one factory across its members', () => {
    expect(STREAMS_PER_FACTORY).toBe(25);
    const factory = { id: `busy-factory-${kind}`, name: 'Acme Ops' };
    const member = (n: number, token = 'a') => owner(`member-${n}-${token}`, { userId: `member-${n}-${kind}`, factory });
    // Three members: 10, 10 and 5 streams, each within its own token's and account's limits.
    const leases = [1, 2, 3].flatMap((n) => [
      ...Array.from({ length: 5 }, () => openStreamLease(member(n, 'a'))),
      ...(n < 3 ? Array.from({ length: 5 }, () => openStreamLease(member(n, 'b'))) : []),
    ]);
    expect(leases).toHaveLength(25);
    const refused = refusal(member(4));
    expect(refused.message).toBe(
      'The factory Acme Ops already has 25 open streams of delivery logs on this server, counting all its members, the most one factory may have: close one, or try again later',
    );
    expect(refused.retryAfterSeconds).toBe(30);
    // The same member reading another factory's log is not held back; one stream closed frees a slot.
    const elsewhere = openStreamLease(owner('member-4-a', { userId: `member-4-${kind}` }));
    leases.pop()!.release();
    const fourth = openStreamLease(member(4));
    expect(refusal(member(3, 'b')).message).toMatch(/^The factory Acme Ops already has 25/);
    for (const lease of [...leases, elsewhere, fourth]) lease.release();
  });

  postgresOnly('never skips an entry whose transaction commits after a later entry was read', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    // Connection A writes an entry and does not commit yet; B writes one after it and commits.
    const late = new pg.Client({ connectionString: database.url });
    await late.connect();
    try {
      await late.query('BEGIN');
      await insertOn(late, 'dl_late');
      // About time passing: the entry committed next must get a later timestamp.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const early = await accept({ committed: 'first' });
      const times = await database.prisma.delivery.findMany({ where: { id: { in: [early] } }, select: { receivedAt: true } });
      // A receivedAt cursor would now read `early` and move past the late entry's earlier timestamp for good.
      const [lateAt] = (await late.query<{ receivedAt: Date }>(`SELECT "receivedAt" FROM "Delivery" WHERE "id" = 'dl_late'`)).rows;
      expect(lateAt!.receivedAt.getTime()).toBeLessThan(times[0]!.receivedAt.getTime());
      // The stream holds back instead: nothing is read while the earlier transaction runs.
      const held = await streamPage(webhookId, position, {});
      expect(held.entries).toEqual([]);
      expect(held.position).toEqual(position);
      await late.query('COMMIT');
      expect((await drain(position)).seen).toEqual(['dl_late', early]);
    } finally {
      await late.end();
    }
  });

  postgresOnly('does not send an entry whose transaction rolls back, nor stall after it', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const aborted = new pg.Client({ connectionString: database.url });
    await aborted.connect();
    try {
      await aborted.query('BEGIN');
      await insertOn(aborted, 'dl_rolled_back');
      const after = await accept({ after: 'rollback' });
      await aborted.query('ROLLBACK');
      expect((await drain(position)).seen).toEqual([after]);
    } finally {
      await aborted.end();
    }
  });

  postgresOnly('is not held back by a transaction in another database of the server', async () => {
    const { position } = await streamStart(factoryId, uid, {});
    const other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('CREATE TEMP TABLE held (x int) ON COMMIT DROP');
      await other.query('INSERT INTO held VALUES (1)');
      const id = await accept({ other: 'database' });
      expect((await drain(position)).seen).toEqual([id]);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      await other.end();
    }
  });
});
