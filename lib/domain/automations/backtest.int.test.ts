import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestTrigger, type BacktestResult } from '@/lib/domain/automations/test-filter';
import type { Db } from '@/lib/platform/db';
import { COPIED_THROUGH, COPIED_THROUGH_SQL, copyPendingBodies } from '@/lib/domain/deliveries/body-json';
import { createFactory } from '@/lib/domain/factories/service';
import { matchesFilter, type PayloadFilter } from '@/lib/ingress/filters';
import { appError } from '@/tests/support/app-error';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { budget } from '@/scripts/speed.mjs';

// Backtest over the whole retained log: more deliveries than the old
// "latest 100", counted in TypeScript before housekeeping has copied the
// bodies to jsonb and in SQL after, with the same answer both times. Bodies
// jsonb cannot hold stay in TypeScript for good.

const COUNT = 240;
const start = Date.parse('2026-11-20T00:00:00Z');
const actions = ['opened', 'closed', 'reopened'];

function bodyOf(i: number): string {
  if (i % 40 === 7) return JSON.stringify({ action: 'opened', note: `nul \u0000 ${i}`, number: i });
  const labels = i % 5 === 0 ? [] : [{ name: i % 2 === 0 ? 'bug' : 'ui' }, { name: `l${i % 7}` }];
  return JSON.stringify({
    action: actions[i % 3],
    number: i,
    amount: i % 4 === 0 ? 10 : 10.5,
    pull_request: { draft: i % 6 === 0, merged_by: i % 9 === 0 ? null : undefined, base: { ref: i % 10 === 0 ? 'release' : 'main' } },
    labels,
    sender: { login: `user-${i % 11}`, type: i % 13 === 0 ? 'Bot' : 'User' },
  });
}

const filters: [string, PayloadFilter | null][] = [
  ['no filter', null],
  ['equality', { action: 'opened' }],
  ['in', { action: { in: ['opened', 'reopened'] } }],
  ['not_in', { sender: { type: { not_in: ['Bot'] } } }],
  ['exists', { pull_request: { merged_by: { exists: true } } }],
  ['exists: false', { pull_request: { merged_by: { exists: false } } }],
  ['array of objects', { labels: { name: 'bug' } }],
  ['numbers', { amount: 10.0 }],
  ['no match', { action: 'deleted' }],
];

const copiedThrough = async (db: Db) => {
  const [row] = await db.$queryRawUnsafe<{ at: Date }[]>(`SELECT ${COPIED_THROUGH_SQL} AS "at"`);
  return row!.at.getTime();
};
const setCopiedThrough = (db: Db, at: Date) =>
  db.instanceSetting.update({ where: { key: COPIED_THROUGH }, data: { value: at.toISOString().replace('T', ' ').replace('Z', '') } });

describe.each(testDatabaseKinds())('Backtest over the retained log on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  const uid = 'wh_backtest';
  const trigger = (payload: PayloadFilter | null) => ({
    provider: 'webhook' as const,
    event: 'received' as const,
    filter: payload ? { webhook_ids: [uid], payload } : { webhook_ids: [uid] },
  });
  const expected = (filter: PayloadFilter | null) => {
    let count = 0;
    for (let i = 0; i < COUNT; i++) if (matchesFilter(filter, JSON.parse(bodyOf(i)))) count++;
    return count;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const db = database.prisma;
    const user = await createUser({ email: 'b@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Factory', slug: 'backtest' }, db)).id;
    const webhook = await db.webhook.create({ data: { factoryId, uid, name: 'github', secretName: 'S' }, select: { id: true } });
    const other = await db.webhook.create({ data: { factoryId, uid: 'wh_other', name: 'other', secretName: 'S' }, select: { id: true } });
    const rows = [];
    for (let i = 0; i < COUNT; i++) {
      rows.push({
        id: `d-${String(i).padStart(4, '0')}`,
        webhookId: webhook.id,
        deliveryId: `evt-${i}`,
        identitySource: 'service_header' as const,
        status: 'accepted' as const,
        size: 10,
        // Two deliveries share each millisecond: the id breaks the tie.
        receivedAt: new Date(start + Math.floor(i / 2) * 60_000),
        body: bodyOf(i),
      });
    }
    rows.push({ id: 'rejected', webhookId: webhook.id, deliveryId: 'evt-x', identitySource: 'service_header' as const, status: 'rejected_auth' as const, size: 10, receivedAt: new Date(start), body: null });
    rows.push({ id: 'elsewhere', webhookId: other.id, deliveryId: 'evt-y', identitySource: 'service_header' as const, status: 'accepted' as const, size: 10, receivedAt: new Date(start), body: bodyOf(1) });
    await db.delivery.createMany({ data: rows });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const before = new Map<string, BacktestResult>();

  it.each(filters)('counts every retained delivery before the bodies are copied: %s', async (name, filter) => {
    const result = await backtestTrigger(factoryId, { trigger: trigger(filter) }, database.prisma);
    expect(result.tested).toBe(COUNT);
    expect(result.wouldTrigger).toBe(expected(filter));
    before.set(name, result);
  });

  it('copies the bodies once; a body jsonb cannot hold gets no copy', async () => {
    const db = database.prisma;
    expect(await copyPendingBodies(db)).toBe(COUNT + 1);
    expect(await copyPendingBodies(db)).toBe(0);
    const withoutCopy = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT "deliveryId" AS "id" FROM "DeliveryJson" WHERE "json" IS NULL ORDER BY 1`);
    expect(withoutCopy.map((row) => row.id)).toEqual(['d-0007', 'd-0047', 'd-0087', 'd-0127', 'd-0167', 'd-0207']);
    const copy = await db.delivery.findUniqueOrThrow({ where: { id: 'd-0004' }, select: { receivedAt: true, jsonCopy: true } });
    expect(copy.jsonCopy).toEqual({ deliveryId: 'd-0004', webhookId: expect.any(String), receivedAt: copy.receivedAt, json: JSON.parse(bodyOf(4)) });
    expect(await db.deliveryJson.count()).toBe(COUNT + 1); // the rejected entry has no body
    // The cursor passed every delivery: the next pass reads nothing old.
    expect(await copiedThrough(db)).toBeGreaterThan(start + COUNT * 60_000);
  });

  it.each(filters)('gives the same answer from the copies in SQL: %s', async (name, filter) => {
    const result = await backtestTrigger(factoryId, { trigger: trigger(filter) }, database.prisma);
    expect(result).toEqual(before.get(name));
    // A large log is counted in two halves at once; the answer is the same.
    expect(await backtestTrigger(factoryId, { trigger: trigger(filter) }, database.prisma, 1)).toEqual(result);
  });

  it('counts a log partly copied (copies pending, some bodies in TypeScript), in halves', async () => {
    const db = database.prisma;
    const pending = ['d-0010', 'd-0200', 'd-0239'];
    await db.deliveryJson.deleteMany({ where: { deliveryId: { in: pending } } });
    await setCopiedThrough(db, new Date(start + 5 * 60_000 - 1)); // just before d-0010
    for (const [name, filter] of filters) {
      expect(await backtestTrigger(factoryId, { trigger: trigger(filter) }, db, 1), name).toEqual(before.get(name));
    }
    expect(await copyPendingBodies(db)).toBe(pending.length);
  });

  it('lists the most recent matches and non-matches, newest first, explained', async () => {
    const result = await backtestTrigger(factoryId, { trigger: trigger({ action: 'closed' }), limit: 2 }, database.prisma);
    expect(result).toMatchObject({ tested: COUNT, wouldTrigger: expected({ action: 'closed' }), webhook: { uid, name: 'github', state: 'live' } });
    // Actions cycle opened, closed, reopened: 239 reopened, 238 closed, 237 opened, 236 reopened, 235 closed.
    const newest = (i: number) => ({ id: `d-${String(i).padStart(4, '0')}`, deliveryId: `evt-${i}` });
    expect(result.deliveries.map((d) => ({ id: d.id, deliveryId: d.deliveryId, wouldTrigger: d.wouldTrigger }))).toEqual([
      { ...newest(239), wouldTrigger: false },
      { ...newest(238), wouldTrigger: true },
      { ...newest(237), wouldTrigger: false },
      { ...newest(235), wouldTrigger: true },
    ]);
    expect(result.deliveries[0]?.failures).toEqual(['path "action": expected "closed", got "reopened" (different value)']);
    expect(result.deliveries[1]?.failures).toEqual([]);
    expect(result.deliveries[0]?.receivedAt).toEqual(new Date(start + 119 * 60_000));
  });

  it('finds the few matches far back in the log', async () => {
    const result = await backtestTrigger(factoryId, { trigger: trigger({ number: { in: [3, 1] } }) }, database.prisma);
    expect(result.wouldTrigger).toBe(2);
    expect(result.deliveries.filter((d) => d.wouldTrigger).map((d) => d.id)).toEqual(['d-0003', 'd-0001']);
    expect(result.deliveries.filter((d) => !d.wouldTrigger)).toHaveLength(25);
  });

  it('refuses an unknown webhook and an invalid filter', async () => {
    const error = await appError(backtestTrigger(factoryId, { trigger: { ...trigger(null), filter: { webhook_ids: ['wh_nope'] } } }, database.prisma));
    expect(error.fields).toEqual({ 'trigger.filter.webhook_ids': 'No webhook with UID wh_nope in this factory' });
    await expect(backtestTrigger(factoryId, { trigger: trigger({ action: { in: [] } } as unknown as PayloadFilter) }, database.prisma)).rejects.toThrow();
  });
});

// The copy job's cursor never passes a delivery whose transaction has not
// committed yet: its receivedAt is its transaction's now(), which can be well
// before the commit. On PostgreSQL the pass runs while that transaction is
// open; PGlite has one connection, so the pass waits for the commit.
describe.each(testDatabaseKinds())('Backtest copies on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('copies a delivery that commits after a pass has moved the cursor', async () => {
    const db = database.prisma;
    const user = await createUser({ email: 'c@example.com', password: 'a long enough password' }, db);
    const factoryId = (await createFactory(user.id, { name: 'Factory', slug: 'copies' }, db)).id;
    const webhook = await db.webhook.create({ data: { factoryId, uid: 'wh_late', name: 'late', secretName: 'S' }, select: { id: true } });
    const insert = (id: string) =>
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
       VALUES ('${id}', '${webhook.id}', '${id}', 'service_header', 'accepted', 2, now(), '{"n":1}')`;
    await db.$executeRawUnsafe(insert('early'));

    let inserted!: () => void;
    let commit!: () => void;
    const insertedPromise = new Promise<void>((resolve) => (inserted = resolve));
    const commitPromise = new Promise<void>((resolve) => (commit = resolve));
    const late = db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(insert('late'));
        inserted();
        await commitPromise;
      },
      { timeout: budget(30_000) },
    );
    await insertedPromise;
    // About time passing: past the horizon's one-second margin, so only the open transaction holds the cursor back.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const pass = copyPendingBodies(db, { transaction: kind === 'postgres' });
    if (kind === 'postgres') expect(await pass).toBe(1); // 'early' only: 'late' is invisible
    commit();
    await late;
    await pass;
    // About time passing: the next pass comes after the horizon's one-second margin, as housekeeping's next turn would.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await copyPendingBodies(db, { transaction: kind === 'postgres' });
    const copies = await db.deliveryJson.findMany({ select: { deliveryId: true }, orderBy: { deliveryId: 'asc' } });
    expect(copies.map((copy) => copy.deliveryId)).toEqual(['early', 'late']);
    expect(await copyPendingBodies(db)).toBe(0);
  });
});
