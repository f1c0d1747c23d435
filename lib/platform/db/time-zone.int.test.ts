import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/lib/platform/db';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';

// The app's timestamps are `timestamp without time zone` holding UTC: Prisma
// writes and reads them as UTC, and SQL writes them with now(), which is in
// the session's zone. So every session of the app must be in UTC, whatever
// the server's default (timezone in postgresql.conf, ALTER DATABASE) or, for
// the embedded database, the machine's (PGlite takes the process's zone).

const NEW_YORK = 'America/New_York';
const utcDate = () => new Date().toISOString().slice(0, 10);

describe.each(testDatabaseKinds())("the app's sessions on %s", (kind) => {
  const opened: (Database | TestDatabase)[] = [];
  const savedTz = process.env.TZ;
  afterEach(async () => {
    process.env.TZ = savedTz;
    if (savedTz === undefined) delete process.env.TZ;
    for (const database of opened.splice(0)) await ('drop' in database ? database.drop() : database.close());
  });

  it("write now() in UTC when the database's default zone is another", async () => {
    let db;
    if (kind === 'postgres') {
      const test = await createTestDatabase(kind);
      opened.push(test);
      const name = new URL(test.url!).pathname.slice(1);
      await test.prisma.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone = '${NEW_YORK}'`);
      const fresh = openDatabase({ kind: 'postgres', url: test.url! }, { poolSize: 2 });
      opened.push(fresh);
      db = fresh.prisma;
      // The server's own default for a new session is New York's now.
      const { rows } = await fresh.adapter.pool!.query<{ zone: string }>(`SELECT "reset_val" AS "zone" FROM pg_settings WHERE "name" = 'TimeZone'`);
      expect(rows).toEqual([{ zone: NEW_YORK }]);
    } else {
      process.env.TZ = NEW_YORK;
      const fresh = openDatabase({ kind: 'memory' });
      opened.push(fresh);
      db = fresh.prisma;
    }
    const [row] = await db.$queryRawUnsafe<{ zone: string; day: string; at: Date }[]>(
      `SELECT current_setting('TimeZone') AS "zone", CURRENT_DATE::text AS "day", now()::timestamp(3) AS "at"`,
    );
    expect(row!.zone).toBe('UTC');
    expect(Math.abs(row!.at.getTime() - Date.now())).toBeLessThan(60_000);
    expect([utcDate(), new Date(Date.now() - 60_000).toISOString().slice(0, 10)]).toContain(row!.day);
  });
});
