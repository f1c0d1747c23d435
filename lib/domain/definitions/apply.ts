import 'server-only';
import { prisma } from '@/lib/platform/db';
import { isIgnoredPath } from '@/lib/domain/definitions/parse';
import { planDefinitions, planDigest, type ConnectionStep, type Plan } from '@/lib/domain/definitions/plan';
import { connectWebhook, disconnectWebhook } from '@/lib/domain/connections/service';
import type { DefinitionFiles } from '@/lib/domain/definitions/schemas';
import { replaceDefinitionFilesTx } from '@/lib/domain/definitions/store';
import { Prisma } from '@/lib/generated/prisma/client';
import { AppError, toAppError } from '@/lib/platform/http/errors';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import { errorFields, log } from '@/lib/platform/log';
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

/** One connection step apply took after the webhooks were written: its outcome, and the provider's reason when it failed. */
export type ConnectionOutcome = { name: string; uid: string; step: ConnectionStep; ok: true; hookUrl: string | null } | { name: string; uid: string; step: ConnectionStep; ok: false; message: string };

export type ApplyOutcome = { ok: true; plan: Plan; created: CreatedWebhook[]; changed: boolean; connections: ConnectionOutcome[] } | { ok: false; plan: Plan };

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
  /** The digest of the plan the admin saw (planDigest): refused, with nothing written, when the plan made now differs. */
  expectedPlan?: string;
  db?: typeof prisma;
};

/** A connection step that failed on Tripline's side, as its outcome says it (the cause is in the server's log at that time). */
export const INTERNAL_STEP_MESSAGE = 'Tripline failed on its side during this step (the cause is in the server’s log at this time)';

/** The refusal of an apply whose plan is no longer the one shown (docs/decisions/0125). */
export const PLAN_CHANGED_MESSAGE =
  'The plan changed since it was shown (a webhook or a team secret of this factory changed meanwhile): nothing was applied. Make the plan again and review it before applying.';

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
  const outcome = await applyWebhooks(factoryId, files, options, db);
  if (!outcome.ok) return outcome;
  return { ...outcome, connections: await applyConnections(factoryId, outcome, db) };
}

/**
 * The connection steps, after the webhooks' transaction committed: each asks
 * the provider, and no transaction may stay open across a provider's answer
 * (the embedded database has one connection). Each step stands alone: one
 * that fails leaves the webhooks as applied and its connection as it was,
 * and the plan shows it again, so the next apply tries it again
 * (docs/decisions/0109-a-connection-in-a-definition-file-is-made-by-apply.md).
 */
async function applyConnections(factoryId: string, outcome: Omit<ApplyOutcome & { ok: true }, 'connections'>, db: typeof prisma): Promise<ConnectionOutcome[]> {
  const results: ConnectionOutcome[] = [];
  for (const action of outcome.plan.actions) {
    if (action.action === 'delete' || !action.connection) continue;
    const uid = action.action === 'update' ? action.uid : outcome.created.find((c) => c.name === action.name)!.uid;
    const step = action.connection;
    try {
      if (step === 'connect') {
        const view = await connectWebhook(factoryId, uid, action.definition.connection!, db, { fromDefinitions: true });
        results.push({ name: action.name, uid, step, ok: true, hookUrl: view.providerHookUrl });
      } else {
        await disconnectWebhook(factoryId, uid, { deleteProviderHook: false }, db, { fromDefinitions: true });
        results.push({ name: action.name, uid, step, ok: true, hookUrl: null });
      }
    } catch (error) {
      const appError = toAppError(error);
      if (appError.code === 'internal') {
        // The webhooks are committed: an error answer would say that nothing applied. The step failed on Tripline's
        // side (a bug, the database gone mid-step); its cause goes to the server's log, never to the caller, and the
        // step is left to the next apply like a provider's refusal.
        log('definitions').error({ factoryId, webhook: uid, step, ...errorFields(error) }, `connection step ${step} of ${action.name} failed on the server`);
        results.push({ name: action.name, uid, step, ok: false, message: `${INTERNAL_STEP_MESSAGE} (${new Date().toISOString()})` });
        continue;
      }
      results.push({ name: action.name, uid, step, ok: false, message: appError.message });
    }
  }
  return results;
}

async function applyWebhooks(factoryId: string, files: DefinitionFiles, options: ApplyOptions, db: typeof prisma): Promise<Omit<ApplyOutcome & { ok: true }, 'connections'> | { ok: false; plan: Plan }> {
  const touched: string[] = [];
  const outcome = await db.$transaction(
    async (tx) => {
      const current = await lockFactoryConfig(tx, factoryId);
      if (current !== options.source && !options.switching) throw refuse(current);
      const plan = await planDefinitions(factoryId, files, tx);
      if (plan.problems.length > 0) return { ok: false as const, plan };
      // Made under the factory's lock: nothing can change it between this comparison and the writes.
      if (options.expectedPlan !== undefined && planDigest(plan) !== options.expectedPlan) throw new AppError('conflict', PLAN_CHANGED_MESSAGE);

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
      return { ok: true as const, plan, created, changed };
    },
    { timeout: 60_000 },
  );
  for (const uid of touched) forgetWebhook(uid);
  return outcome;
}
