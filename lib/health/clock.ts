import 'server-only';
import { prisma, type DbOrTx as Db } from '@/lib/db';
import { env } from '@/lib/env';

// The time health is judged at. Test servers (and only they, with
// TRIPLINE_TEST_CLOCK=true, like lib/ingress/clock.ts) may move it forward
// with POST /api/test/clock, so a Silent interval can be crossed over real
// HTTP without waiting. The offset lives in the database, so every instance
// on it agrees.

const OFFSET_KEY = 'test-clock-offset-ms';

export async function healthNow(db: Db = prisma): Promise<Date> {
  if (!env().testClock) return new Date();
  const row = await db.instanceSetting.findUnique({ where: { key: OFFSET_KEY }, select: { value: true } });
  const offset = row ? Number(row.value) : 0;
  return new Date(Date.now() + (Number.isFinite(offset) ? offset : 0));
}

/** Test servers only: moves the health clock forward by `seconds` (cumulative). */
export async function advanceTestClock(seconds: number, db: Db = prisma): Promise<Date> {
  if (!env().testClock) throw new Error('the test clock is off');
  const row = await db.instanceSetting.findUnique({ where: { key: OFFSET_KEY }, select: { value: true } });
  const offset = (row ? Number(row.value) : 0) + seconds * 1000;
  await db.instanceSetting.upsert({ where: { key: OFFSET_KEY }, create: { key: OFFSET_KEY, value: String(offset) }, update: { value: String(offset) } });
  return new Date(Date.now() + offset);
}
