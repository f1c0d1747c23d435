import 'server-only';
import { prisma } from '@/lib/platform/db';
import { isIgnoredPath } from '@/lib/domain/definitions/parse';
import { planDefinitions, type Plan } from '@/lib/domain/definitions/plan';
import type { DefinitionFiles } from '@/lib/domain/definitions/schemas';
import { replaceDefinitionFilesTx } from '@/lib/domain/definitions/store';
import { Prisma } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/platform/http/errors';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import {
  deleteWebhookTx,
  insertWebhookTx,
  lockFactoryConfig,
  updateWebhookTx,
  type ConfigSource,
} from '@/lib/domain/webhooks/service';
import { ingressUrl } from '@/lib/ingress/urls';

// Applying a set of definition files. All or nothing: the plan is made and
// carried out in one transaction that holds the factory's row lock, the same
// lock every dashboard change to the factory's webhooks takes, so two applies
// (from any number of app instances) never interleave, and an apply with any
// problem writes nothing at all.

export type CreatedWebhook = { uid: string; name: string; ingressUrl: string };

export type ApplyOutcome = { ok: true; plan: Plan; created: CreatedWebhook[]; changed: boolean } | { ok: false; plan: Plan };

export type RepositoryCommit = {
  url: string;
  branch: string;
  commit: string;
  /** Connecting: the credential to keep (encrypted; null: none) and whether the operator's CLI set the location. Syncing leaves both as they are. */
  credentialEncrypted?: string | null;
  setByOperator?: boolean;
};

type ApplyOptions = {
  /** The kind of factory the files are for: managed (files kept by the service) or repository (a commit of a branch). */
  source: 'managed' | 'repository';
  /** For a repository: the commit the files come from. */
  repository?: RepositoryCommit;
  /** Connecting a repository may start from any kind; otherwise the factory must already be of `source`'s kind. */
  switching?: boolean;
  db?: typeof prisma;
};

function refuse(current: ConfigSource): AppError {
  return new AppError(
    'conflict',
    current === 'repository'
      ? 'This factory applies the production branch of its git repository: commit the files there, then sync.'
      : 'This factory’s webhooks are managed in the dashboard: switch it to managed definition files in its settings (or with `tripline factory use-managed`) first.',
  );
}

export async function applyDefinitions(factoryId: string, files: DefinitionFiles, options: ApplyOptions): Promise<ApplyOutcome> {
  const db = options.db ?? prisma;
  const touched: string[] = [];
  const outcome = await db.$transaction(
    async (tx): Promise<ApplyOutcome> => {
      const current = await lockFactoryConfig(tx, factoryId);
      if (current !== options.source && !options.switching) throw refuse(current);
      const plan = await planDefinitions(factoryId, files, tx);
      if (plan.problems.length > 0) return { ok: false, plan };

      const created: CreatedWebhook[] = [];
      for (const action of plan.actions) {
        if (action.action === 'delete') await deleteWebhookTx(tx, factoryId, action.uid);
        else if (action.action === 'update') await updateWebhookTx(tx, factoryId, action.uid, action.definition);
        else {
          const { row } = await insertWebhookTx(tx, factoryId, action.definition, true);
          created.push({ uid: row.uid, name: row.name, ingressUrl: ingressUrl(row.uid, row.authMode) });
        }
        if ('uid' in action) touched.push(action.uid);
      }

      // Keep the definition files themselves (dotfiles such as .gitkeep are not definitions).
      const definitionFiles = Object.fromEntries(Object.entries(files).filter(([path]) => !isIgnoredPath(path)));
      const filesChanged = await replaceDefinitionFilesTx(tx, factoryId, definitionFiles);
      const changed = filesChanged || plan.actions.length > 0 || current !== options.source;

      const now = new Date();
      if (options.repository) {
        await tx.factory.update({
          where: { id: factoryId },
          data: {
            configSource: 'repository',
            repoUrl: options.repository.url,
            ...(options.repository.credentialEncrypted !== undefined ? { repoCredentialEncrypted: options.repository.credentialEncrypted } : {}),
            ...(options.repository.setByOperator !== undefined ? { repoSetByOperator: options.repository.setByOperator } : {}),
            repoBranch: options.repository.branch,
            appliedCommit: options.repository.commit,
            appliedAt: now,
            lastApplyAttemptAt: now,
            lastApplyError: Prisma.DbNull,
          },
        });
      } else if (changed) {
        await tx.factory.update({
          where: { id: factoryId },
          data: { configSource: options.source, appliedAt: now, lastApplyAttemptAt: now, lastApplyError: Prisma.DbNull },
        });
      }
      return { ok: true, plan, created, changed };
    },
    { timeout: 60_000 },
  );
  for (const uid of touched) forgetWebhook(uid);
  return outcome;
}
