'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useOptimistic, useRef, useState, useTransition, type FormEvent } from 'react';
import { cn } from '@/components/ui/cn';
import { SearchIcon, XIcon } from '@/components/ui/icons';
import { controlStyles } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { deliveryStatusFilters, deliveryStatusLabels, type DeliveryStatusFilter } from '@/lib/domain/deliveries/schemas';

const SEARCH_DELAY_MS = 300;

/**
 * Status and event type filters and search of the delivery log, kept in the URL (?status=&event=&q=)
 * so a filtered view can be shared and reloaded. A new filter starts again
 * from the newest page (the cursor is dropped). Without JavaScript, Enter in
 * the search box submits the same parameters with a GET.
 */
export function DeliveryFilters({
  status,
  q,
  event = null,
  eventTypes = null,
  handshakes = false,
  allowlist = false,
  searchProblemId = null,
}: {
  status: DeliveryStatusFilter | null;
  q: string;
  /** The event type filter in the URL (?event=). */
  event?: string | null;
  /** The event types the filter offers (the newest entries'), or null to offer none. */
  eventTypes?: { type: string; count: number }[] | null;
  handshakes?: boolean;
  /** The webhook has an IP allowlist: Refused (address) is offered. */
  allowlist?: boolean;
  /** The id of the message saying why the search could not be answered (shown by the card): the box is marked invalid and described by it. */
  searchProblemId?: string | null;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  const [shownStatus, setShownStatus] = useOptimistic(status ?? '');
  const [shownEvent, setShownEvent] = useOptimistic(event ?? '');
  const [text, setText] = useState(q);
  // The last search this component sent, and the last one the server answered:
  // a q that changes without us (back button, a shared link) resets the box,
  // an answer to our own typing never overwrites what was typed since.
  const [sent, setSent] = useState(q);
  const [seen, setSeen] = useState(q);
  if (q !== seen) {
    setSeen(q);
    if (q !== sent) {
      setSent(q);
      setText(q);
    }
  }
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  function go(next: { status: string; q: string; event?: string }, mode: 'push' | 'replace') {
    const nextEvent = next.event ?? shownEvent;
    clearTimeout(timer.current);
    const search = next.q.trim();
    setSent(search);
    const params = new URLSearchParams();
    if (next.status) params.set('status', next.status);
    if (nextEvent) params.set('event', nextEvent);
    if (search) params.set('q', search);
    const query = params.toString();
    startTransition(() => {
      setShownStatus(next.status);
      setShownEvent(nextEvent);
      router[mode](query ? `${pathname}?${query}` : pathname, { scroll: false });
    });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ status: shownStatus, q: text }, 'replace');
  }

  return (
    <form
      role="search"
      aria-label="Filter deliveries"
      action={pathname}
      method="get"
      onSubmit={onSubmit}
      className="flex flex-col gap-2.5 sm:flex-row sm:items-center"
    >
      <Select
        name="status"
        aria-label="Status"
        value={shownStatus}
        // A status is a deliberate choice: it gets its own history entry, so Back undoes it.
        onChange={(event) => go({ status: event.target.value, q: text }, 'push')}
        className="sm:w-56"
      >
        <option value="">All statuses</option>
        {deliveryStatusFilters.filter((value) => (value !== 'handshake' || handshakes) && (value !== 'refused_address' || allowlist)).map((value) => (
          <option key={value} value={value}>
            {deliveryStatusLabels[value]}
          </option>
        ))}
      </Select>
      {eventTypes ? (
        <Select
          name="event"
          aria-label="Event type"
          value={shownEvent}
          // Like the status, a deliberate choice with its own history entry.
          onChange={(change) => go({ status: shownStatus, q: text, event: change.target.value }, 'push')}
          className="sm:w-60"
        >
          <option value="">All event types</option>
          {shownEvent && !eventTypes.some((known) => known.type === shownEvent) ? <option value={shownEvent}>{shownEvent}</option> : null}
          {eventTypes.map((known) => (
            <option key={known.type} value={known.type}>
              {known.type} ({known.count.toLocaleString('en')})
            </option>
          ))}
        </Select>
      ) : null}
      <div className="relative min-w-0 flex-1">
        <SearchIcon className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-fg-subtle" />
        <input
          type="search"
          name="q"
          aria-label="Search deliveries"
          aria-invalid={searchProblemId ? true : undefined}
          aria-describedby={searchProblemId ?? undefined}
          placeholder="Search delivery ID or payload"
          value={text}
          maxLength={200}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => {
            const value = event.target.value;
            setText(value);
            clearTimeout(timer.current);
            // Typing refines one search: replace, so Back does not step through every keystroke.
            timer.current = setTimeout(() => go({ status: shownStatus, q: value }, 'replace'), SEARCH_DELAY_MS);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && text) {
              event.preventDefault();
              setText('');
              go({ status: shownStatus, q: '' }, 'replace');
            }
          }}
          className={cn(controlStyles, 'h-9 pr-16 pl-9 [&::-webkit-search-cancel-button]:appearance-none')}
        />
        <div className="absolute inset-y-0 right-1.5 flex items-center gap-1">
          {pending ? <Spinner size="sm" label="Loading deliveries" className="text-fg-subtle" /> : null}
          {text ? (
            <button
              type="button"
              aria-label="Clear search"
              onClick={() => {
                setText('');
                go({ status: shownStatus, q: '' }, 'replace');
              }}
              className="inline-flex size-6 items-center justify-center rounded-md text-fg-subtle transition-colors hover:bg-subtle hover:text-fg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
            >
              <XIcon className="size-3.5" />
            </button>
          ) : null}
        </div>
      </div>
    </form>
  );
}
