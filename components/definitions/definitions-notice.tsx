import Link from 'next/link';
import { Alert } from '@/components/ui/alert';
import { redactUrl } from '@/lib/domain/definitions/redact-url';
import type { DefinitionsStatus } from '@/lib/domain/definitions/service';
import { dateTimeFormat } from '@/components/format';

/** Above the webhooks of a factory whose webhooks live in definition files: where they come from. */
export function DefinitionsNotice({ status, factorySlug, manage }: { status: DefinitionsStatus; factorySlug: string; manage: boolean }) {
  const settings = manage ? (
    <>
      {' '}
      <Link href={`/f/${factorySlug}/settings`}>Settings</Link> shows the files.
    </>
  ) : null;
  if (status.configSource === 'managed') {
    return (
      <Alert tone="info" title="Kept in definition files" className="mb-6">
        Creating or deleting a webhook here writes or removes its file, <span className="font-mono">webhooks/&lt;name&gt;.yaml</span>, then applies it.
        The name is the file’s name, so a webhook cannot be renamed: renaming is deleting it and creating another.{settings}
      </Alert>
    );
  }
  if (status.configSource !== 'repository') return null;
  return (
    <Alert tone="info" title="Defined in a git repository" className="mb-6">
      Webhooks come from <span className="font-mono">webhooks/</span> on branch <span className="font-mono">{status.repoBranch}</span> of{' '}
      <span className="font-mono break-all">{redactUrl(status.repoUrl ?? '')}</span>
      {status.appliedCommit ? (
        <>
          , applied at commit{' '}
          <span className="font-mono" title={status.appliedCommit}>
            {status.appliedCommit.slice(0, 12)}
          </span>
          {status.appliedAt ? ` on ${dateTimeFormat.format(status.appliedAt)}` : ''}
        </>
      ) : null}
      . Change them there; here only Enabled can be changed.{settings}
      {status.lastFailure ? <p className="mt-1 font-medium">The last apply failed: {status.lastFailure.message}.</p> : null}
    </Alert>
  );
}
