import type { Database } from '@/lib/platform/db';
import { AppError } from '@/lib/platform/http/errors';

/** The factory id for a slug, or a clear error. */
export async function factoryIdOrThrow({ prisma }: Database, slug: string): Promise<string> {
  const factory = await prisma.factory.findUnique({ where: { slug }, select: { id: true } });
  if (!factory) throw new AppError('not_found', `No factory has the slug "${slug}"`);
  return factory.id;
}

/** Who the CLI's changes are recorded as (a replay job's creator, a run's canceller): the operator at the server's shell. */
export const CLI_ACTOR = { email: 'operator (CLI)' };
