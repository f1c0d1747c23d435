import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { definitionFile } from '@/lib/domain/webhooks/definition-file';
import type { DefinitionFiles, DefinitionProblem } from '@/lib/domain/definitions/schemas';
import { readDefinitionFiles, replaceDefinitionFilesTx } from '@/lib/domain/definitions/store';
import { enqueueEvent, factoryRef } from '@/lib/domain/notifications/service';
import { Prisma } from '@/lib/generated/prisma/client';
import { listWebhookDefinitions, lockFactoryConfig, type ConfigSource } from '@/lib/domain/webhooks/service';

// A factory's definition settings: which kind it is, and for a repository,
// what applied last and what failed. Connecting and syncing a repository are
// in repository.ts.

/** Recorded when a repository apply fails: the commit (null when it could not be fetched), when, and why. */
export type ApplyFailure = { commit: string | null; at: string; message: string; problems: DefinitionProblem[] };

export type DefinitionsStatus = {
  configSource: ConfigSource;
  /** The repository location, without credentials. */
  repoUrl: string | null;
  /** Whether a credential is stored for it (never the credential itself). */
  repoCredentialStored: boolean;
  repoBranch: string;
  appliedCommit: string | null;
  appliedAt: Date | null;
  lastFailure: ApplyFailure | null;
};

export async function getDefinitionsStatus(factoryId: string, db: DbOrTx = prisma): Promise<DefinitionsStatus> {
  const factory = await db.factory.findUniqueOrThrow({
    where: { id: factoryId },
    select: { configSource: true, repoUrl: true, repoCredentialEncrypted: true, repoBranch: true, appliedCommit: true, appliedAt: true, lastApplyError: true },
  });
  return {
    configSource: factory.configSource,
    repoUrl: factory.repoUrl,
    repoCredentialStored: factory.repoCredentialEncrypted !== null,
    repoBranch: factory.repoBranch,
    appliedCommit: factory.appliedCommit,
    appliedAt: factory.appliedAt,
    lastFailure: (factory.lastApplyError as ApplyFailure | null) ?? null,
  };
}

/**
 * Records a failed apply and queues its notification, in one transaction.
 * Called only when the failure changes (the periodic check retries a failing
 * commit quietly), so one notification per failure: a failure recorded
 * without its notification (a crash between two statements) would never be
 * announced, since the next check finds the same failure already recorded.
 */
export async function recordApplyFailure(factoryId: string, failure: Omit<ApplyFailure, 'at'>, db: Db = prisma): Promise<void> {
  await db.$transaction(async (tx) => {
    const at = new Date();
    const factory = await tx.factory.update({
      where: { id: factoryId },
      data: { lastApplyError: { ...failure, at: at.toISOString() }, lastApplyAttemptAt: at },
      select: { slug: true, name: true },
    });
    const ref = factoryRef(factory);
    await enqueueEvent(tx, factoryId, 'definitions.apply_failed', {
      factory: ref,
      commit: failure.commit,
      error: failure.message,
      problems: failure.problems,
      url: `${ref.url}/settings`,
    });
  });
}

export async function clearApplyFailure(factoryId: string, db: DbOrTx = prisma): Promise<void> {
  await db.factory.update({ where: { id: factoryId }, data: { lastApplyError: Prisma.DbNull } });
}

/** The files of a factory's live webhooks, as the dashboard would write them. */
export async function exportDefinitionFiles(factoryId: string, db: DbOrTx = prisma): Promise<DefinitionFiles> {
  const webhooks = await listWebhookDefinitions(factoryId, db);
  return Object.fromEntries(
    webhooks.map(({ definition }) => {
      const file = definitionFile(definition);
      return [file.path, file.content];
    }),
  );
}

/**
 * Switches a factory to dashboard or managed definitions. Managed starts from
 * the live webhooks written as files (nothing is re-applied, so no webhook
 * changes); back to the dashboard, the files are dropped.
 */
export async function setConfigSource(factoryId: string, source: 'dashboard' | 'managed', db = prisma): Promise<void> {
  await db.$transaction(async (tx) => {
    const current = await lockFactoryConfig(tx, factoryId);
    if (current === source) return;
    await replaceDefinitionFilesTx(tx, factoryId, source === 'managed' ? await exportDefinitionFiles(factoryId, tx) : {});
    await tx.factory.update({
      where: { id: factoryId },
      data: { configSource: source, appliedCommit: null, appliedAt: null, lastApplyError: Prisma.DbNull, repoCredentialEncrypted: null },
    });
  });
}

export { readDefinitionFiles };
