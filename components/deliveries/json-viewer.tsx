'use client';

import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { cn } from '@/components/ui/cn';
import { CodeBlock } from '@/components/ui/code-block';
import { CopyButton } from '@/components/ui/copy-button';
import { ChevronRightIcon } from '@/components/ui/icons';
import { MAX_DEPTH, parseJsonTree, type JsonNode } from '@/components/json-tree';
import { FilterOnContext, FilterOnThis, type FilterOnTargets } from './filter-on-this';

// A readable view of a JSON document: a tree of native <details> (keyboard
// and screen-reader friendly) with syntax colours, next to the exact text.
//
// The tree comes from components/json-tree.ts, which keeps what was sent (key
// order, repeated keys, numbers as written). Large documents stay cheap:
// branches deeper than two levels start closed and render their children only
// once opened, and a branch shows its children 200 at a time. Below MAX_DEPTH
// levels a subtree is shown as its raw text, so the page's DOM does not grow
// with the nesting.

const PAGE = 200;
const OPEN_DEPTH = 2;
const LONG_STRING = 600;


type Expansion = 'auto' | 'all' | 'none';
const ExpansionContext = createContext<Expansion>('auto');

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function Key({ name }: { name: string | number | undefined }) {
  if (name === undefined) return null;
  return typeof name === 'number' ? (
    <span className="text-fg-subtle tabular-nums">{name}:</span>
  ) : (
    <span data-json="key" className="text-sky-800">
      {JSON.stringify(name)}
      <span className="text-fg-subtle">:</span>
    </span>
  );
}

function LongString({ value }: { value: string }) {
  return <LongText text={JSON.stringify(value)} characters={value.length} />;
}

/** Text cut after LONG_STRING characters, with a button that shows all of it. */
function LongText({ text, characters = text.length }: { text: string; characters?: number }) {
  const [full, setFull] = useState(false);
  if (full || text.length <= LONG_STRING) return <>{text}</>;
  return (
    <>
      {text.slice(0, LONG_STRING)}…{' '}
      <button
        type="button"
        onClick={() => setFull(true)}
        className="rounded-sm font-sans text-xs font-medium text-accent-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
      >
        Show all {count(characters, 'character', 'characters')}
      </button>
    </>
  );
}

function Scalar({ node }: { node: Exclude<JsonNode, { kind: 'object' | 'array' }> }) {
  switch (node.kind) {
    case 'raw':
      return (
        <span data-json="raw" className="break-all whitespace-pre-wrap text-fg-muted" title={`Nested deeper than ${MAX_DEPTH} levels: shown as text`}>
          <LongText text={node.text} />
        </span>
      );
    case 'string':
      return (
        <span data-json="string" className="break-all whitespace-pre-wrap text-emerald-700">
          <LongString value={node.value} />
        </span>
      );
    case 'number':
      return (
        <span data-json="number" className="text-amber-700">
          {node.raw}
        </span>
      );
    case 'boolean':
      return (
        <span data-json="boolean" className="text-violet-700">
          {String(node.value)}
        </span>
      );
    case 'null':
      return (
        <span data-json="null" className="text-rose-700">
          null
        </span>
      );
  }
}

/** Indented children with a guide line, aligned under the chevron. */
function Children({ children }: { children: ReactNode }) {
  return <div className="ml-[5px] border-l border-line pl-[17px]">{children}</div>;
}

function Branch({ node, name, depth, path }: { node: Extract<JsonNode, { kind: 'object' | 'array' }>; name?: string | number; depth: number; path: Path }) {
  const expansion = useContext(ExpansionContext);
  const size = node.kind === 'object' ? node.entries.length : node.items.length;
  const [open, setOpen] = useState(
    depth === 0 || (expansion === 'all' ? true : expansion === 'none' ? false : depth < OPEN_DEPTH && size <= PAGE),
  );
  const [shown, setShown] = useState(PAGE);
  const [opening, closing] = node.kind === 'object' ? ['{', '}'] : ['[', ']'];
  const sizeText = node.kind === 'object' ? count(size, 'key', 'keys') : count(size, 'item', 'items');

  if (size === 0) {
    return (
      <div className="flex items-baseline gap-1.5 pl-[17px]">
        <Key name={name} />
        <span className="text-fg-subtle">
          {opening}
          {closing}
        </span>
      </div>
    );
  }

  const children =
    node.kind === 'object'
      ? node.entries.slice(0, shown).map(([key, child], index) => <Value key={index} node={child} name={key} depth={depth + 1} path={[...path, key]} />)
      : node.items.slice(0, shown).map((child, index) => <Value key={index} node={child} name={index} depth={depth + 1} path={[...path, index]} />);

  return (
    <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)} data-json={node.kind}>
      <summary
        className={cn(
          'flex cursor-pointer list-none items-baseline gap-1.5 rounded-sm select-none hover:bg-zinc-900/[0.04] [&::-webkit-details-marker]:hidden',
          'focus-visible:outline-2 focus-visible:-outline-offset-1 focus-visible:outline-accent-600',
        )}
      >
        <ChevronRightIcon
          strokeWidth={2.5}
          className={cn('size-3 shrink-0 self-center text-fg-subtle transition-transform duration-100', open && 'rotate-90')}
        />
        <Key name={name} />
        <span className="text-fg-subtle">{open ? opening : `${opening}…${closing}`}</span>
        <span className="font-sans text-xs text-fg-subtle">{sizeText}</span>
      </summary>
      {/* Closed branches render nothing inside: a large payload costs what is open. */}
      {open ? (
        <>
          <Children>
            {children}
            {size > shown ? (
              <button
                type="button"
                onClick={() => setShown((n) => n + PAGE)}
                className="my-0.5 rounded-sm font-sans text-xs font-medium text-accent-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
              >
                Show {Math.min(PAGE, size - shown).toLocaleString('en')} more ({(size - shown).toLocaleString('en')} not shown)
              </button>
            ) : null}
          </Children>
          <div className="pl-[17px] text-fg-subtle">{closing}</div>
        </>
      ) : null}
    </details>
  );
}

type Path = readonly (string | number)[];

/** The value of a scalar node, for Filter on this. */
function scalarValue(node: Exclude<JsonNode, { kind: 'object' | 'array' | 'raw' }>) {
  switch (node.kind) {
    case 'string':
    case 'boolean':
      return node.value;
    case 'number':
      return Number(node.raw);
    case 'null':
      return null;
  }
}

function Value({ node, name, depth, path }: { node: JsonNode; name?: string | number; depth: number; path: Path }) {
  if (node.kind === 'object' || node.kind === 'array') return <Branch node={node} name={name} depth={depth} path={path} />;
  return (
    <div className="group/row flex items-baseline gap-1.5 pl-[17px]">
      <Key name={name} />
      <Scalar node={node} />
      {node.kind === 'raw' ? null : <FilterOnThis path={path} value={scalarValue(node)} />}
    </div>
  );
}

function ToolbarButton({ pressed, onClick, children }: { pressed?: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={cn(
        'inline-flex h-7 items-center rounded-[5px] px-2.5 text-xs font-medium transition-colors',
        'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-accent-600',
        pressed === undefined
          ? 'text-fg-muted hover:bg-subtle hover:text-fg'
          : pressed
            ? 'bg-surface text-fg shadow-xs ring-1 ring-line-strong'
            : 'text-fg-muted hover:text-fg',
      )}
    >
      {children}
    </button>
  );
}

export type JsonViewerProps = {
  /** The exact JSON text (it is what Copy JSON and Raw give). */
  body: string;
  /** Accessible name of the viewer. */
  label?: string;
  className?: string;
  /** Offers "Filter on this" on each scalar (automation editors, on a delivery's payload). */
  filterOn?: FilterOnTargets | null;
};

/** Collapsible, coloured JSON tree with a Raw toggle and Copy JSON. */
export function JsonViewer({ body, label = 'Payload', className, filterOn = null }: JsonViewerProps) {
  const tree = useMemo(() => {
    try {
      return parseJsonTree(body, MAX_DEPTH);
    } catch {
      // Not JSON: the raw text still shows it.
      return null;
    }
  }, [body]);
  const [raw, setRaw] = useState(tree === null);
  const [expansion, setExpansion] = useState<{ mode: Expansion; version: number }>({ mode: 'auto', version: 0 });
  const branchy = tree !== null && (tree.kind === 'object' || tree.kind === 'array');

  return (
    <section aria-label={label} className={cn('flex flex-col gap-2.5', className)}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex items-center gap-2">
          {tree ? (
            <div role="group" aria-label="View" className="inline-flex rounded-control bg-subtle p-0.5 ring-1 ring-line ring-inset">
              <ToolbarButton pressed={!raw} onClick={() => setRaw(false)}>
                Tree
              </ToolbarButton>
              <ToolbarButton pressed={raw} onClick={() => setRaw(true)}>
                Raw
              </ToolbarButton>
            </div>
          ) : (
            <p className="text-[13px] text-fg-muted">Not valid JSON: shown as received.</p>
          )}
          {!raw && branchy ? (
            <div className="flex items-center">
              <ToolbarButton onClick={() => setExpansion((e) => ({ mode: 'all', version: e.version + 1 }))}>Expand all</ToolbarButton>
              <ToolbarButton onClick={() => setExpansion((e) => ({ mode: 'none', version: e.version + 1 }))}>Collapse all</ToolbarButton>
            </div>
          ) : null}
        </div>
        <CopyButton value={body} label="Copy JSON" showLabel size="md" className="border border-line-strong bg-surface shadow-xs" />
      </div>
      {raw || !tree ? (
        <CodeBlock code={body} language="json" title="Exact body" copyable={false} wrap className="[&_pre]:max-h-[36rem]" />
      ) : (
        <div
          data-testid="json-tree"
          className="max-h-[36rem] overflow-auto rounded-lg border border-line bg-subtle/40 px-3 py-2.5 font-mono text-[13px] leading-6 text-fg"
        >
          <ExpansionContext.Provider value={expansion.mode}>
            <FilterOnContext.Provider value={filterOn}>
              <Value key={expansion.version} node={tree} depth={0} path={[]} />
            </FilterOnContext.Provider>
          </ExpansionContext.Provider>
        </div>
      )}
    </section>
  );
}
