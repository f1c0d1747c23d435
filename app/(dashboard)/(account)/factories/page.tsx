import type { Metadata } from 'next';
import Link from 'next/link';
import { Card, CardHeader } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { NumberedPager } from '@/components/ui/pager';
import { DataTable, TD, TR } from '@/components/ui/table';
import { roleLabels } from '@/lib/domain/auth/roles';
import { requireUser } from '@/lib/domain/auth/current-user';
import { pageOfFactoriesForUser } from '@/lib/domain/factories/service';
import { pageParam } from '@/lib/platform/paging';

export const metadata: Metadata = { title: 'Your factories' };

// GET /factories?page=: every factory the signed-in person belongs to, 100 a page (the switcher lists the first 20)
export default async function FactoriesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUser();
  const list = await pageOfFactoriesForUser(user.id, pageParam((await searchParams).page));
  return (
    <>
      <PageHeader title="Your factories" description="Every factory you belong to, with your role in it." />
      <Card>
        <CardHeader title={`${list.total.toLocaleString('en')} ${list.total === 1 ? 'factory' : 'factories'}`} />
        <DataTable columns={[{ header: 'Factory' }, { header: 'Your role' }]}>
          {list.rows.map((factory) => (
            <TR key={factory.id}>
              <TD>
                <Link href={`/f/${factory.slug}/automations`} className="font-medium text-fg hover:underline">
                  {factory.name}
                </Link>
                <div className="font-mono text-[13px] text-fg-subtle">{factory.slug}</div>
              </TD>
              <TD label="Your role" className="text-fg-muted">
                {roleLabels[factory.role]}
              </TD>
            </TR>
          ))}
        </DataTable>
        <NumberedPager list={list} what="factories" label="Factory pages" href={(page) => (page === 1 ? '/factories' : `/factories?page=${page}`)} />
      </Card>
    </>
  );
}
