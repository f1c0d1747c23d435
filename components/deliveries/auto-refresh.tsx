'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';

/**
 * Re-renders the page's server components every few seconds while the tab is
 * visible, so new deliveries show up without a reload. It waits for one
 * refresh to finish before scheduling the next, pauses while the tab is
 * hidden and refreshes at once when it comes back. Shows a small "Live" mark.
 */
export function AutoRefresh({ intervalMs = 3000 }: { intervalMs?: number }) {
  const router = useRouter();
  const [refreshing, startTransition] = useTransition();
  const [hidden, setHidden] = useState(false);
  const busy = useRef(false);

  useEffect(() => {
    busy.current = refreshing;
  }, [refreshing]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(tick, intervalMs);
    };
    function tick() {
      if (document.hidden) return;
      if (!busy.current) {
        busy.current = true;
        startTransition(() => router.refresh());
      }
      schedule();
    }
    const onVisibility = () => {
      setHidden(document.hidden);
      if (document.hidden) clearTimeout(timer);
      else tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    if (!document.hidden) schedule();
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [router, intervalMs]);

  return (
    <span
      className="inline-flex items-center gap-1.5 rounded-full border border-line bg-surface px-2 py-0.5 text-xs font-medium text-fg-muted"
      title={hidden ? 'Updates paused while the tab is hidden' : `Updates every ${Math.round(intervalMs / 1000)} seconds`}
    >
      <span aria-hidden="true" className="relative flex size-2">
        {hidden ? null : <span className="absolute inline-flex size-full rounded-full bg-emerald-400 opacity-60 motion-safe:animate-ping" />}
        <span className={`relative inline-flex size-2 rounded-full ${hidden ? 'bg-zinc-400' : 'bg-emerald-500'}`} />
      </span>
      {hidden ? 'Paused' : 'Live'}
    </span>
  );
}
