import { FilterOnThis, type FilterOnTargets } from '@/components/deliveries/filter-on-this';
import { Table, TBody, TD, TH, THead, TR } from '@/components/ui/table';

const REDACTED = '[redacted]';

/**
 * The request headers kept with an accepted delivery (credentials already
 * redacted by the ingress). With editor links, each header a filter can test
 * offers Filter on this (a trigger's header filter).
 */
export function RequestHeaders({ headers, filterOn = null }: { headers: Record<string, string>; filterOn?: FilterOnTargets | null }) {
  const rows = Object.entries(headers).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Table aria-label="Request headers" className="table-fixed">
      <THead>
        <TR>
          <TH className="w-64">Name</TH>
          <TH>Value</TH>
        </TR>
      </THead>
      <TBody>
        {rows.map(([name, value]) => (
          <TR key={name} className="group/row">
            <TD className="py-2 align-top font-mono text-[13px] break-all text-fg-muted">{name}</TD>
            <TD className="py-2 align-top font-mono text-[13px] break-all">
              {value === REDACTED ? (
                <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-fg-muted ring-1 ring-zinc-500/15 ring-inset">{value}</span>
              ) : (
                <span className="inline-flex max-w-full items-start gap-1.5">
                  <span className="min-w-0">{value}</span>
                  <FilterOnThis on="headers" path={[name]} value={value} targets={filterOn} />
                </span>
              )}
            </TD>
          </TR>
        ))}
      </TBody>
    </Table>
  );
}
