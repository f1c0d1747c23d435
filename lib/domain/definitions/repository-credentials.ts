import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { decryptSecret, encryptSecret } from '@/lib/platform/crypto/encryption';
import type { RepositoryCredential } from '@/lib/domain/definitions/repository-url';

// A credential given in a repository URL (https://user:token@host/...) is
// kept apart from the URL, encrypted like team secrets, so the URL can be
// stored, shown, returned by the API and logged without it. It is handed to
// git only in its environment (repository.ts), never on a command line.

const context = (factoryId: string) => `repository-credential:${factoryId}`;

export function encryptRepositoryCredential(factoryId: string, credential: RepositoryCredential): string {
  return encryptSecret(JSON.stringify(credential), context(factoryId));
}

export function decryptRepositoryCredential(factoryId: string, encrypted: string): RepositoryCredential {
  const value = JSON.parse(decryptSecret(encrypted, context(factoryId))) as RepositoryCredential;
  return { username: String(value.username ?? ''), password: String(value.password ?? '') };
}

/** The userinfo of an http(s) URL, read leniently (older rows may not pass today's URL rules). */
function splitCredential(url: string): { url: string; credential: RepositoryCredential } | null {
  const match = /^(https?:\/\/)([^/]*)@([^/]*)(\/.*)?$/i.exec(url);
  if (!match) return null;
  const [, scheme, userinfo, host, rest] = match;
  const colon = userinfo!.indexOf(':');
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return {
    url: `${scheme!.toLowerCase()}${host}${rest ?? ''}`,
    credential: { username: decode(colon < 0 ? userinfo! : userinfo!.slice(0, colon)), password: colon < 0 ? '' : decode(userinfo!.slice(colon + 1)) },
  };
}

/**
 * Upgrade step (run at start, after migrations): moves a credential still
 * written in a stored repository URL into the encrypted column. The update
 * only applies while the row still holds the URL it read, so instances
 * starting together move each credential once and none is lost.
 */
export async function moveRepositoryCredentials(db: DbOrTx = prisma): Promise<number> {
  const rows = await db.factory.findMany({ where: { repoUrl: { contains: '@' } }, select: { id: true, repoUrl: true } });
  let moved = 0;
  for (const row of rows) {
    const split = splitCredential(row.repoUrl!);
    if (!split) continue;
    const { count } = await db.factory.updateMany({
      where: { id: row.id, repoUrl: row.repoUrl },
      data: { repoUrl: split.url, repoCredentialEncrypted: encryptRepositoryCredential(row.id, split.credential) },
    });
    moved += count;
  }
  return moved;
}
