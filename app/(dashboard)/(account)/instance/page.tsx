import type { Metadata } from 'next';
import { UserActions } from '@/components/instance/user-actions';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { NumberedPager } from '@/components/ui/pager';
import { PageHeader } from '@/components/ui/page-header';
import { DataTable, TD, TR } from '@/components/ui/table';
import { requireInstanceAdminPage } from '@/lib/domain/auth/current-user';
import { env } from '@/lib/platform/env';
import { pageOfFactories, pageOfUsers } from '@/lib/domain/instance/service';
import { pageParam } from '@/lib/platform/paging';
import { dateFormat } from '@/components/format';

export const metadata: Metadata = { title: 'Instance' };

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

type SearchParams = Record<string, string | string[] | undefined>;

// GET /instance?accounts=&factories=: every account and factory, 100 a page each, for instance admins only (others get 404)
export default async function InstancePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const me = await requireInstanceAdminPage();
  const search = await searchParams;
  const [userPage, factoryPage] = await Promise.all([pageOfUsers(pageParam(search.accounts)), pageOfFactories(pageParam(search.factories))]);
  const users = userPage.rows;
  const factories = factoryPage.rows;
  const { allowSignup, factoryCreation } = env();
  const href = (list: 'accounts' | 'factories', page: number) => {
    const query = new URLSearchParams({ accounts: String(userPage.page), factories: String(factoryPage.page), [list]: String(page) });
    for (const [key, value] of [...query]) if (value === '1') query.delete(key);
    return query.size > 0 ? `/instance?${query}` : '/instance';
  };

  return (
    <>
      <PageHeader
        title="Instance"
        description={
          <>
            Accounts and factories of this Tripline. Sign-up is {allowSignup ? 'open to anyone' : 'by invitation'}; factories are created by{' '}
            {factoryCreation === 'everyone' ? 'any account' : 'instance admins'}.
          </>
        }
      />
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader
            title={plural(userPage.total, 'account', 'accounts')}
            description="A disabled account is signed out everywhere, cannot sign in, and its API tokens stop working. The instance always keeps an enabled instance admin."
          />
          <DataTable
            columns={[
              { header: 'Person' },
              { header: 'Status' },
              { header: 'Factories', numeric: true },
              { header: 'Created' },
              { header: 'Manage', className: 'text-right' },
            ]}
          >
            {users.map((user) => {
              const isSelf = user.id === me.id;
              return (
                <TR key={user.id}>
                  <TD>
                    <div className="flex items-center gap-2">
                      <span className="font-medium text-fg">{user.name || user.email}</span>
                      {isSelf ? <Badge>You</Badge> : null}
                    </div>
                    {user.name ? <div className="text-[13px] text-fg-subtle">{user.email}</div> : null}
                  </TD>
                  <TD label="Status">
                    <div className="flex flex-wrap gap-1.5">
                      {user.disabledAt ? (
                        <Badge tone="danger" dot>
                          Disabled
                        </Badge>
                      ) : (
                        <Badge tone="success" dot>
                          Active
                        </Badge>
                      )}
                      {user.instanceAdmin ? <Badge tone="accent">Instance admin</Badge> : null}
                    </div>
                  </TD>
                  <TD numeric label="Factories" className="text-fg-muted">
                    {user.factories}
                  </TD>
                  <TD label="Created" className="text-fg-muted">{dateFormat.format(user.createdAt)}</TD>
                  <TD className="text-right">
                    <UserActions
                      user={{ id: user.id, email: user.email, instanceAdmin: user.instanceAdmin, disabled: Boolean(user.disabledAt) }}
                      isSelf={isSelf}
                    />
                  </TD>
                </TR>
              );
            })}
          </DataTable>
          <NumberedPager list={userPage} what="accounts" label="Account pages" href={(page) => href('accounts', page)} />
        </Card>
        <Card>
          <CardHeader
            title={plural(factoryPage.total, 'factory', 'factories')}
            description="Every factory of this Tripline, with its members and live webhooks. Factory admins manage both inside each factory."
          />
          <DataTable
            columns={[
              { header: 'Factory' },
              { header: 'Members', numeric: true },
              { header: 'Webhooks', numeric: true },
              { header: 'Created' },
            ]}
          >
            {factories.map((factory) => (
              <TR key={factory.id}>
                <TD>
                  <div className="font-medium text-fg">{factory.name}</div>
                  <div className="font-mono text-[13px] text-fg-subtle">{factory.slug}</div>
                </TD>
                <TD numeric label="Members" className="text-fg-muted">
                  {factory.members}
                </TD>
                <TD numeric label="Webhooks" className="text-fg-muted">
                  {factory.webhooks}
                </TD>
                <TD label="Created" className="text-fg-muted">{dateFormat.format(factory.createdAt)}</TD>
              </TR>
            ))}
          </DataTable>
          <NumberedPager list={factoryPage} what="factories" label="Factory pages" href={(page) => href('factories', page)} />
        </Card>
      </div>
    </>
  );
}
