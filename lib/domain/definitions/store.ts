import 'server-only';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import type { DefinitionFiles } from '@/lib/domain/definitions/schemas';
import { writeDefinitionFileTx } from '@/lib/domain/webhooks/definition-file';

// The definition files the service keeps for a factory (DefinitionFile rows):
// on a managed factory they are the truth that the dashboard and `apply`
// write; on a repository-backed factory they are a copy of the files of the
// applied commit, so both kinds show and export their files the same way.

export async function readDefinitionFiles(factoryId: string, db: DbOrTx = prisma): Promise<DefinitionFiles> {
  const rows = await db.definitionFile.findMany({ where: { factoryId }, select: { path: true, content: true }, orderBy: { path: 'asc' } });
  return Object.fromEntries(rows.map((row) => [row.path, row.content]));
}

/** Makes the stored files exactly `files`, writing only what differs. Returns whether anything was written. */
export async function replaceDefinitionFilesTx(tx: Tx, factoryId: string, files: DefinitionFiles): Promise<boolean> {
  const current = await readDefinitionFiles(factoryId, tx);
  const gone = Object.keys(current).filter((path) => !(path in files));
  const changed = Object.entries(files).filter(([path, content]) => current[path] !== content);
  if (gone.length > 0) await tx.definitionFile.deleteMany({ where: { factoryId, path: { in: gone } } });
  for (const [path, content] of changed) await writeDefinitionFileTx(tx, factoryId, { path, content });
  return gone.length > 0 || changed.length > 0;
}
