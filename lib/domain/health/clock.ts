import 'server-only';
import { prisma, type DbOrTx as Db } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';

// The time health is judged at. Test servers (and only they, with
// TRIPLINE_TEST_CLOCK=true, like lib/ingress/clock.ts) may move it forward
// with POST /api/test/clock {"offsetSeconds": n}, so a Silent interval can be crossed over real
// HTTP without waiting. The offset lives in the database, so every instance
// on it agrees.

const OFFSET_KEY = 'test-clock-offset-ms';

export async function healthNow(db: Db = prisma): Promise<Date> {
  if (!env().testClock) return new Date();
  const row = await db.instanceSetting.findUnique({ where: { key: OFFSET_KEY }, select: { value: true } });
  const offset = row ? Number(row.value) : 0;
  return new Date(Date.now() + (Number.isFinite(offset) ? offset : 0));
}

/** Test servers only: sets the health clock `seconds` ahead of the real time (0: back to the real time). */
export async function setTestClockOffset(seconds: number, db: Db = prisma): Promise<Date> {
  if (!env().testClock) throw new Error('the test clock is off');
  const offset = seconds * 1000;
  await db.instanceSetting.upsert({ where: { key: OFFSET_KEY }, create: { key: OFFSET_KEY, value: String(offset) }, update: { value: String(offset) } });
  return new Date(Date.now() + offset);
}
