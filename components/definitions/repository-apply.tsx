'use client';

import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { ProblemList, PlanView, type PlanJson } from '@/components/definitions/plan-view';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { applyRepositoryAction, previewRepositoryAction } from '@/lib/domain/definitions/actions';
import type { DefinitionProblem, RepositorySettingsInput } from '@/lib/domain/definitions/schemas';
import { reach } from '@/components/forms/reach';

type Preview = { commit: string; url: string; branch: string; plan: PlanJson };

/**
 * Fetches the branch, shows the plan of its newest commit, and applies that
 * commit when the admin confirms: "Sync now" on a repository-backed factory,
 * and the last step of connecting one (with `settings`).
 */
export function RepositoryApply({
  factorySlug,
  settings,
  label,
  appliedCommit,
  onError,
}: {
  factorySlug: string;
  /** Connecting: the repository to check. Syncing: leave out. */
  settings?: () => RepositorySettingsInput | null;
  label: string;
  appliedCommit?: string | null;
  /** Connecting: errors about the URL or the branch (fields.url, fields.branch) belong next to those fields. */
  onError?: (message: string | null, fields?: Record<string, string>) => void;
}) {
  const router = useRouter();
  const [preview, setPreview] = useState<Preview | null>(null);
  const [problems, setProblems] = useState<DefinitionProblem[]>([]);
  const [error, setError] = useState<string | null>(null);
  // Set when an apply was refused because the branch or the plan moved since the check: the dialog then shows the new plan.
  const [moved, setMoved] = useState<string | null>(null);
  const [checking, startChecking] = useTransition();
  const [applying, startApplying] = useTransition();

  const report = (message: string | null, fields?: Record<string, string>) => {
    setError(message);
    onError?.(message, fields);
  };

  const check = () =>
    startChecking(async () => {
      report(null);
      setProblems([]);
      setMoved(null);
      const chosen = settings ? settings() : undefined;
      if (chosen === null) return;
      const result = await reach(previewRepositoryAction)(factorySlug, { repository: chosen });
      if (!result.ok) return report(result.error.message, result.error.fields);
      setPreview(result.data);
    });

  // The apply names the commit and the plan shown: when either moved since the check, nothing applies, and the dialog
  // checks again and shows the plan as it is now, so the admin confirms what will happen (docs/decisions/0125).
  const apply = () =>
    startApplying(async () => {
      if (!preview) return;
      const repository = settings ? (settings() ?? undefined) : undefined;
      const result = await reach(applyRepositoryAction)(factorySlug, { repository, commit: preview.commit, plan: preview.plan.digest });
      if (!result.ok) {
        if (result.error.code !== 'conflict') return setError(result.error.message);
        const again = await reach(previewRepositoryAction)(factorySlug, { repository });
        if (!again.ok) return setError(again.error.message);
        // Refused for another reason (a sync already running): the plan shown still stands.
        if (again.data.commit === preview.commit && again.data.plan.digest === preview.plan.digest) return setError(result.error.message);
        setError(null);
        setMoved(
          again.data.commit !== preview.commit
            ? `The branch moved to ${again.data.commit.slice(0, 12)} since you checked. Nothing was applied: below is what applying it would do now.`
            : 'This factory’s webhooks or team secrets changed since you checked. Nothing was applied: below is what applying the commit would do now.',
        );
        return setPreview(again.data);
      }
      if (!result.data.applied) return setProblems(result.data.problems);
      setPreview(null);
      router.refresh();
    });

  const upToDate = preview && !settings && preview.commit === appliedCommit && preview.plan.actions.length === 0;
  const invalid = preview ? preview.plan.problems.length > 0 : false;

  return (
    <>
      <Button type="button" variant={settings ? 'primary' : 'secondary'} loading={checking} onClick={check} aria-haspopup="dialog">
        {label}
      </Button>
      {error && !settings ? <p role="alert" className="text-[13px] text-red-700">{error}</p> : null}
      <Dialog
        open={preview !== null}
        onOpenChange={(open) => {
          if (!open) {
            setPreview(null);
            setProblems([]);
            setError(null);
            setMoved(null);
          }
        }}
        size="lg"
        title={upToDate ? 'Up to date' : invalid ? 'This commit cannot apply' : 'Apply this commit?'}
        description={
          preview ? (
            <>
              Branch <span className="font-mono">{preview.branch}</span> of <span className="font-mono break-all">{preview.url}</span> is at{' '}
              <span className="font-mono">{preview.commit.slice(0, 12)}</span>
              {upToDate ? ', the applied commit.' : '.'}
            </>
          ) : null
        }
        footer={
          <>
            <Button type="button" variant="secondary" onClick={() => setPreview(null)} disabled={applying}>
              {upToDate || invalid ? 'Close' : 'Cancel'}
            </Button>
            {upToDate || invalid ? null : (
              <Button type="button" loading={applying} onClick={apply}>
                Apply {preview?.commit.slice(0, 7)}
              </Button>
            )}
          </>
        }
      >
        {preview ? (
          <div className="flex flex-col gap-4">
            {moved ? (
              <Alert tone="warning" title="The plan changed">
                {moved}
              </Alert>
            ) : null}
            {invalid ? (
              <Alert tone="danger" title="Nothing would change: the definition files have problems">
                <ProblemList problems={preview.plan.problems} />
              </Alert>
            ) : (
              <PlanView plan={preview.plan} />
            )}
            {problems.length > 0 ? (
              <Alert tone="danger" title="The apply failed; nothing changed">
                <ProblemList problems={problems} />
              </Alert>
            ) : null}
            {error ? <Alert tone="danger">{error}</Alert> : null}
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
