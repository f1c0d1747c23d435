import type { Metadata } from 'next';
import Link from 'next/link';
import { AdminRequired } from '@/components/factories/admin-required';
import { CreateSecretForm } from '@/components/secrets/create-secret-form';
import { SecretActions } from '@/components/secrets/secret-actions';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { DataTable, TD, TR } from '@/components/ui/table';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { listSecrets } from '@/lib/domain/secrets/service';
import { dateTimeFormat } from '@/components/format';

export const metadata: Metadata = { title: 'Secrets' };

// GET /f/[factory]/secrets: team secrets, admins only
export default async function SecretsPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const header = (
    <PageHeader
      title="Secrets"
      description="Team secrets store webhook credentials, encrypted at rest. Values are write-only: nobody can read them back."
    />
  );
  if (!context.can('factory:manage')) {
    return (
      <>
        {header}
        <AdminRequired factoryName={factory.name} task="manage team secrets" />
      </>
    );
  }

  const secrets = await listSecrets(factory.id);
  const webhooks = `/f/${factory.slug}/automations/webhooks`;

  return (
    <>
      {header}
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader
            title="Add a secret"
            description="Creating a webhook adds its secret here for you. Add one yourself to give several webhooks the same credential."
          />
          <CardBody>
            <CreateSecretForm factorySlug={factory.slug} />
          </CardBody>
        </Card>
        <Card>
          <CardHeader title={`${secrets.length} ${secrets.length === 1 ? 'secret' : 'secrets'}`} />
          <DataTable
            columns={[
              { header: 'Name' },
              { header: 'Used by' },
              { header: 'Updated' },
              { header: 'Actions', className: 'text-right', hidden: true },
            ]}
            empty={{ title: 'No team secrets yet', description: 'Creating a webhook stores its credential here.' }}
          >
            {secrets.map((secret) => (
              <TR key={secret.name}>
                <TD className="font-mono text-[13px] font-medium text-fg">{secret.name}</TD>
                <TD label="Used by">
                  {secret.usedBy.length === 0 ? (
                    <span className="text-fg-subtle">Not used</span>
                  ) : (
                    <ul className="flex flex-wrap gap-x-2 gap-y-0.5">
                      {secret.usedBy.map((webhook, index) => (
                        <li key={webhook.uid}>
                          <Link href={`${webhooks}/${webhook.uid}`} className="whitespace-nowrap text-accent-700 hover:underline hover:underline-offset-2">
                            {webhook.name}
                          </Link>
                          {index < secret.usedBy.length - 1 ? <span className="text-fg-subtle">,</span> : null}
                        </li>
                      ))}
                    </ul>
                  )}
                </TD>
                <TD label="Updated" className="whitespace-nowrap text-fg-muted">{dateTimeFormat.format(secret.updatedAt)}</TD>
                <TD className="text-right">
                  <SecretActions factorySlug={factory.slug} name={secret.name} used={secret.usedBy.length > 0} />
                </TD>
              </TR>
            ))}
          </DataTable>
        </Card>
      </div>
    </>
  );
}
