import type { Metadata } from 'next';
import { ApiTokenTable, CreateApiTokenForm } from '@/components/settings/api-tokens';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { listApiTokens } from '@/lib/domain/api-tokens/service';
import { requireUser } from '@/lib/domain/auth/current-user';

export const metadata: Metadata = { title: 'User settings' };

// GET /settings: the signed-in person's account and API tokens
export default async function SettingsPage() {
  const user = await requireUser();
  const tokens = await listApiTokens(user.id);
  return (
    <>
      <PageHeader title="User settings" description={`Signed in as ${user.email}.`} />
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader
            title="API tokens"
            description="Personal tokens for the management API (/api/v1). A token acts with your roles in each factory."
          />
          <CardBody className="border-b border-line">
            <CreateApiTokenForm />
          </CardBody>
          <ApiTokenTable
            tokens={tokens.map((t) => ({
              id: t.id,
              name: t.name,
              prefix: t.prefix,
              createdAt: t.createdAt.toISOString(),
              lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
            }))}
          />
        </Card>
      </div>
    </>
  );
}
