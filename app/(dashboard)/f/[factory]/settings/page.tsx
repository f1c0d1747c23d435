import type { Metadata } from 'next';
import { ConfigSourceForm } from '@/components/definitions/config-source-form';
import { ProblemList } from '@/components/definitions/plan-view';
import { RepositoryApply } from '@/components/definitions/repository-apply';
import { AdminRequired } from '@/components/factories/admin-required';
import { Alert } from '@/components/ui/alert';
import { buttonStyles } from '@/components/ui/button';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { CodeBlock } from '@/components/ui/code-block';
import { DetailRow } from '@/components/ui/detail-row';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { redactUrl } from '@/lib/domain/definitions/redact-url';
import { getDefinitionsStatus, readDefinitionFiles, type DefinitionsStatus } from '@/lib/domain/definitions/service';
import { env } from '@/lib/platform/env';
import { NotificationsCard } from '@/components/notifications/notifications-card';
import { listDestinations, listNotifications } from '@/lib/domain/notifications/service';
import { preciseDateTimeFormat } from '@/components/format';

export const metadata: Metadata = { title: 'Settings' };

function RepositoryCard({ factorySlug, status }: { factorySlug: string; status: DefinitionsStatus }) {
  const interval = env().repositorySyncInterval;
  const failure = status.lastFailure;
  return (
    <Card>
      <CardHeader
        title="Repository"
        description={
          interval > 0
            ? `Tripline checks the production branch every ${interval} seconds and applies each new commit.`
            : 'The periodic check is off (TRIPLINE_REPOSITORY_SYNC_INTERVAL=0): use Sync now.'
        }
        actions={<RepositoryApply factorySlug={factorySlug} label="Sync now" appliedCommit={status.appliedCommit} />}
      />
      <dl className="divide-y divide-line">
        <DetailRow label="Repository">
          <span className="font-mono text-[13px] break-all">{redactUrl(status.repoUrl ?? '')}</span>
        </DetailRow>
        <DetailRow label="Credential">
          {status.repoCredentialStored ? 'Stored (encrypted; never shown)' : <span className="text-fg-muted">None</span>}
        </DetailRow>
        <DetailRow label="Production branch">
          <span className="font-mono text-[13px]">{status.repoBranch}</span>
        </DetailRow>
        <DetailRow label="Applied commit">
          {status.appliedCommit ? (
            <span className="font-mono text-[13px]" title={status.appliedCommit} data-testid="applied-commit">
              {status.appliedCommit.slice(0, 12)}
            </span>
          ) : (
            <span className="text-fg-muted">None yet</span>
          )}
        </DetailRow>
        <DetailRow label="Applied">{status.appliedAt ? preciseDateTimeFormat.format(status.appliedAt) : <span className="text-fg-muted">Never</span>}</DetailRow>
      </dl>
      {failure ? (
        <CardBody className="border-t border-line">
          <Alert tone="danger" title={`Last failed apply, ${preciseDateTimeFormat.format(new Date(failure.at))}`}>
            <p>
              {failure.message}. The webhooks keep serving as{' '}
              {status.appliedCommit ? <span className="font-mono">{status.appliedCommit.slice(0, 12)}</span> : 'they were'} applied them.
            </p>
            {failure.problems.length > 0 ? (
              <div className="mt-2">
                <ProblemList problems={failure.problems} />
              </div>
            ) : null}
          </Alert>
        </CardBody>
      ) : null}
    </Card>
  );
}

// GET /f/[factory]/settings: where the factory's webhooks are defined, and its definition files (admins only)
export default async function SettingsPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const header = <PageHeader title="Settings" description={`How ${factory.name} keeps its webhook definitions, and where its notifications go.`} />;
  if (!context.can('factory:manage')) {
    return (
      <>
        {header}
        <AdminRequired factoryName={factory.name} task="change the factory’s settings" />
      </>
    );
  }

  const [status, files, destinations, notifications] = await Promise.all([
    getDefinitionsStatus(factory.id),
    readDefinitionFiles(factory.id),
    listDestinations(factory.id),
    listNotifications(factory.id),
  ]);
  const paths = Object.keys(files);
  const withFiles = status.configSource !== 'dashboard';

  return (
    <>
      {header}
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader
            title="Webhook definitions"
            description="Factory as code: one file per webhook, webhooks/<name>.yaml. Plan and apply them from a pipeline with the tripline command or the API."
          />
          <CardBody>
            <ConfigSourceForm factorySlug={factory.slug} current={status.configSource} repoUrl={status.repoUrl} repoBranch={status.repoBranch} credentialStored={status.repoCredentialStored} />
          </CardBody>
        </Card>

        <NotificationsCard factorySlug={factory.slug} destinations={destinations} log={notifications} />

        {status.configSource === 'repository' ? <RepositoryCard factorySlug={factory.slug} status={status} /> : null}

        {withFiles ? (
          <Card>
            <CardHeader
              title="Definition files"
              description={
                status.configSource === 'managed'
                  ? 'Written by the dashboard when a webhook is created, changed or deleted. Download them to move the factory into a repository: unpack the archive at the repository’s root.'
                  : 'The files of the applied commit.'
              }
              actions={
                paths.length > 0 ? (
                  // A plain link: a download, not a page to prefetch.
                  <a href={`/f/${factory.slug}/settings/definitions-archive`} download className={buttonStyles({ variant: 'secondary' })}>
                    Download all (.tar.gz)
                  </a>
                ) : null
              }
            />
            {paths.length === 0 ? (
              <EmptyState title="No definition files" description="A webhook created in the dashboard gets its file here." />
            ) : (
              <CardBody className="flex flex-col gap-4">
                {paths.map((path) => (
                  <CodeBlock key={path} title={path} language="yaml" code={files[path]!} aria-label={path} />
                ))}
              </CardBody>
            )}
          </Card>
        ) : null}
      </div>
    </>
  );
}
