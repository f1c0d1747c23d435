'use client';

import Link from 'next/link';
import { createContext, useContext, useEffect, useId, useRef, useState } from 'react';
import { cn } from '@/components/ui/cn';
import { FilterIcon } from '@/components/ui/icons';
import { MAX_EVENT_PATTERN_LENGTH, MAX_FILTER_DEPTH, MAX_FILTER_STRING_LENGTH, type FilterScalar } from '@/lib/ingress/filters';
import { redactedHeaderReason } from '@/lib/ingress/filters/headers';
import { isOperatorName } from '@/lib/ingress/filters/types';

// "Filter on this" (docs/filters.md, Filter on this): on a scalar of a
// delivery's payload, links that open the automation editor with the
// condition inserted, a new automation or a trigger of one on this webhook.
// Only links: nothing is saved until the person saves in the editor.

export type FilterOnTargets = {
  /** The new-automation editor with this webhook picked. */
  newHref: string;
  /** Each trigger on this webhook, e.g. "Add to a trigger of Triage bugs". */
  triggers: { label: string; href: string }[];
};

export const FilterOnContext = createContext<FilterOnTargets | null>(null);

/** Where a picked condition goes in a trigger: its payload filter, its header filter or its event types. */
export type FilterTarget = 'payload' | 'headers' | 'events';

/** The condition's query parameter, read by the editor pages (components/automations/form-values.ts). */
export function conditionHref(href: string, on: FilterTarget, keys: readonly string[], value: FilterScalar): string {
  const condition = on === 'events' ? { on, value } : on === 'headers' ? { on, path: keys, value } : { path: keys, value };
  return `${href}${href.includes('?') ? '&' : '?'}condition=${encodeURIComponent(JSON.stringify(condition))}`;
}

/** The field names on the way to a value, or null where a filter cannot reach it. */
export function filterKeys(path: readonly (string | number)[], value: FilterScalar, on: FilterTarget = 'payload'): string[] | null {
  if (on === 'events') return typeof value === 'string' && value !== '' && value.length <= MAX_EVENT_PATTERN_LENGTH ? [] : null;
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  if (on === 'headers') {
    // A header the log keeps redacted cannot be filtered on (lib/ingress/filters/headers.ts).
    const [name] = keys;
    if (keys.length !== 1 || !name || typeof value !== 'string' || value === REDACTED || redactedHeaderReason(name)) return null;
  }
  if (keys.length === 0 || keys.length > MAX_FILTER_DEPTH) return null;
  if (keys.some((key) => isOperatorName(key) || key.startsWith('$') || key.length > MAX_FILTER_STRING_LENGTH)) return null;
  if (typeof value === 'string' && value.length > MAX_FILTER_STRING_LENGTH) return null;
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return keys;
}

const REDACTED = '[redacted]';

function describeCondition(on: FilterTarget, keys: readonly string[], value: FilterScalar): string {
  if (on === 'events') return `event type ${String(value)}`;
  if (on === 'headers') return `header ${keys[0]} = ${JSON.stringify(value)}`;
  return `${keys.map((key) => JSON.stringify(key)).join(' › ')} = ${JSON.stringify(value)}`;
}

export function FilterOnThis({
  path,
  value,
  on = 'payload',
  targets: given,
}: {
  path: readonly (string | number)[];
  value: FilterScalar;
  /** Which part of a trigger the condition goes to (a payload field by default). */
  on?: FilterTarget;
  /** The editor links; by default those of the JsonViewer around this button. */
  targets?: FilterOnTargets | null;
}) {
  const fromContext = useContext(FilterOnContext);
  const targets = given === undefined ? fromContext : given;
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        setOpen(false);
        button.current?.focus();
      } else if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  const keys = targets ? filterKeys(path, value, on) : null;
  if (!targets || !keys) return null;
  const condition = describeCondition(on, keys, value);
  const what = on === 'events' ? 'this event type' : on === 'headers' ? `header ${keys[0]}` : keys.join('.');
  const itemStyle =
    'block rounded-md px-2.5 py-1.5 font-sans text-[13px] text-fg hover:bg-subtle focus-visible:bg-subtle focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent-600';

  return (
    <span ref={box} className="relative inline-flex self-center">
      <button
        ref={button}
        type="button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        title="Filter on this"
        className={cn(
          'inline-flex size-5 items-center justify-center rounded text-fg-subtle transition-opacity hover:bg-zinc-900/[0.06] hover:text-accent-700',
          'focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-accent-600',
          open ? 'opacity-100' : 'opacity-0 group-hover/row:opacity-100',
        )}
      >
        <FilterIcon className="size-3.5" />
        <span className="sr-only">Filter on {what}</span>
      </button>
      {open ? (
        <div
          id={menuId}
          role="group"
          aria-label="Filter on this"
          className="absolute top-6 left-0 z-20 flex w-80 flex-col gap-0.5 rounded-lg border border-line bg-surface p-1.5 font-sans shadow-lg"
        >
          <p className="px-2.5 pt-1 pb-1.5 text-xs text-fg-muted">
            Filter on <code className="font-mono break-all text-fg">{condition}</code>
          </p>
          <Link href={conditionHref(targets.newHref, on, keys, value)} className={itemStyle}>
            New automation with this condition
          </Link>
          {targets.triggers.map((trigger) => (
            <Link key={trigger.href} href={conditionHref(trigger.href, on, keys, value)} className={itemStyle}>
              {trigger.label}
            </Link>
          ))}
          <p className="border-t border-line px-2.5 pt-1.5 pb-0.5 text-xs text-fg-subtle">Opens the editor; nothing is saved until you save.</p>
        </div>
      ) : null}
    </span>
  );
}
