import { Card, CardHeader } from '@/components/ui/card';
import { Table, TableEmpty, TBody, TD, TH, THead, TR } from '@/components/ui/table';
import { MAX_CATALOGUE_PATHS, presenceText, type CatalogueField, type FieldCatalogue } from '@/lib/domain/fields/catalogue';

// The webhook page's Fields card: what its deliveries hold, learned from the
// latest accepted ones (docs/filters.md, The field catalogue). The filter
// editor completes from the same catalogue.

const typeTone: Record<string, string> = {
  string: 'text-emerald-700 bg-emerald-50 ring-emerald-600/15',
  number: 'text-amber-700 bg-amber-50 ring-amber-600/15',
  boolean: 'text-violet-700 bg-violet-50 ring-violet-600/15',
  null: 'text-rose-600 bg-rose-50 ring-rose-600/15',
  object: 'text-sky-800 bg-sky-50 ring-sky-700/15',
  array: 'text-sky-800 bg-sky-50 ring-sky-700/15',
};

function Presence({ present, sampled }: { present: number; sampled: number }) {
  const text = presenceText(present, sampled);
  return (
    <div className="flex items-center justify-end gap-2" title={`${present.toLocaleString('en')} of ${sampled.toLocaleString('en')} deliveries`}>
      <div aria-hidden="true" className="h-1.5 w-14 overflow-hidden rounded-full bg-zinc-900/[0.07]">
        <div className="h-full rounded-full bg-accent-600" style={{ width: `${sampled ? (present / sampled) * 100 : 0}%` }} />
      </div>
      <span className="w-9 text-right tabular-nums">{text}</span>
    </div>
  );
}

function TopValues({ field }: { field: CatalogueField }) {
  if (field.values === null) return <span className="text-[13px] text-fg-subtle">Hidden: the name looks like a secret</span>;
  if (field.values.length === 0) return <span className="text-fg-subtle" aria-label="None">—</span>;
  return (
    <ul aria-label={`Top values of ${field.path}`} className="flex flex-wrap gap-1">
      {field.values.map(({ value, count }) => (
        <li
          key={JSON.stringify(value)}
          className="inline-flex max-w-64 items-center gap-1 rounded-md bg-subtle px-1.5 py-0.5 font-mono text-xs text-fg ring-1 ring-line ring-inset"
        >
          <span className="truncate">{JSON.stringify(value)}</span>
          <span className="font-sans text-fg-muted tabular-nums">×{count.toLocaleString('en')}</span>
        </li>
      ))}
    </ul>
  );
}

export function FieldsCard({ catalogue }: { catalogue: FieldCatalogue }) {
  const { sampled, fields, truncated } = catalogue;
  return (
    <Card role="region" aria-label="Fields">
      <CardHeader
        title="Fields"
        description={
          sampled === 0
            ? 'The fields of this webhook’s payloads, learned from its accepted deliveries. None yet.'
            : `The fields of the latest ${sampled.toLocaleString('en')} accepted ${sampled === 1 ? 'delivery' : 'deliveries'}: their types, how often they are present and their most frequent values. The filter editor completes from them; arrays are listed by element (items[].sku).`
        }
      />
      <Table containerClassName="max-h-[32rem] overflow-y-auto" scrollLabel="Field list" className="text-[13px]">
        <THead className="sticky top-0 z-10 bg-subtle">
          <TR>
            <TH>Path</TH>
            <TH className="w-40">Type</TH>
            <TH numeric className="w-36">
              Presence
            </TH>
            <TH>Top values</TH>
          </TR>
        </THead>
        <TBody>
          {fields.length === 0 ? (
            <TableEmpty colSpan={4} title="No fields yet" description="They appear once the webhook accepts a delivery with a JSON object body." />
          ) : (
            fields.map((field) => (
              <TR key={field.path}>
                <TD className="max-w-80 py-2 font-mono break-all text-fg">{field.path}</TD>
                <TD className="py-2">
                  <span className="flex flex-wrap gap-1">
                    {field.types.map((type) => (
                      <span key={type} className={`rounded px-1.5 py-px text-xs font-medium ring-1 ring-inset ${typeTone[type] ?? ''}`}>
                        {type}
                      </span>
                    ))}
                  </span>
                </TD>
                <TD numeric className="py-2">
                  <Presence present={field.present} sampled={sampled} />
                </TD>
                <TD className="py-2">
                  <TopValues field={field} />
                </TD>
              </TR>
            ))
          )}
        </TBody>
      </Table>
      {truncated ? (
        <p className="border-t border-line px-5 py-2.5 text-[13px] text-fg-muted">
          Only the first {MAX_CATALOGUE_PATHS} paths are listed; these payloads hold more.
        </p>
      ) : null}
    </Card>
  );
}
