import type { DbOrTx } from '@/lib/platform/db';

/** Every row of every table in the public schema, as JSON text: for "no secret in clear" checks. */
export async function dumpDatabaseText(db: DbOrTx): Promise<string> {
  const tables = await db.$queryRawUnsafe<Array<{ table_name: string }>>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await db.$queryRawUnsafe<Array<{ row: string }>>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
    parts.push(`-- ${table_name}`, ...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
