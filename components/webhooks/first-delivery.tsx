'use client';

import Link from 'next/link';
import { useEffect, useState } from 'react';
import { DeliveryStatusBadge } from '@/components/deliveries/status-badge';
import { ArrowRightIcon } from '@/components/ui/icons';
import { latestDeliveryAction } from '@/lib/domain/webhooks/actions';
import { reach } from '@/components/forms/reach';

type Latest = NonNullable<Extract<Awaited<ReturnType<typeof latestDeliveryAction>>, { ok: true }>['data']>;

const POLL_MS = 2500;

/**
 * Waits, in place, for the first request to reach a new webhook and shows it
 * as soon as it is logged, so the admin sees the provider's ping or handshake
 * (or the test request) land without reloading. Polls while the tab is
 * visible and stops at the first entry.
 */
export function FirstDelivery({ factorySlug, uid, webhookPath, waitingFor }: { factorySlug: string; uid: string; webhookPath: string; waitingFor: string }) {
  const [latest, setLatest] = useState<Latest | null>(null);

  useEffect(() => {
    if (latest) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      if (!document.hidden) {
        const result = await reach(latestDeliveryAction)(factorySlug, { uid });
        if (stopped) return;
        if (result.ok && result.data) return setLatest(result.data);
      }
      timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [factorySlug, uid, latest]);

  if (!latest) {
    return (
      <div role="status" aria-live="polite" className="flex items-center gap-3 rounded-lg border border-dashed border-line-strong bg-subtle/40 px-4 py-3">
        <span aria-hidden="true" className="relative flex size-2.5 shrink-0">
          <span className="absolute inline-flex size-full rounded-full bg-accent-400 opacity-60 motion-safe:animate-ping" />
          <span className="relative inline-flex size-2.5 rounded-full bg-accent-500" />
        </span>
        <div className="min-w-0 text-[13px] leading-5">
          <p className="font-medium text-fg">Waiting for the first delivery</p>
          <p className="text-fg-muted">{waitingFor}</p>
        </div>
      </div>
    );
  }

  return (
    <div role="status" aria-live="polite" aria-label="First delivery" className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-lg border border-emerald-200 bg-emerald-50/60 px-4 py-3">
      <div className="flex min-w-0 flex-1 flex-col gap-1 text-[13px] leading-5">
        <p className="flex items-center gap-2 font-medium text-fg">
          First delivery received <DeliveryStatusBadge status={latest.status} />
        </p>
        <p className="truncate text-fg-muted">
          <span className="font-mono text-[12px] text-fg">{latest.deliveryId}</span>
          {latest.detail ? ` · ${latest.detail}` : null}
        </p>
      </div>
      <Link
        href={`${webhookPath}/deliveries/${encodeURIComponent(latest.id)}`}
        className="inline-flex items-center gap-1 text-[13px] font-medium text-accent-700 hover:underline hover:underline-offset-2"
      >
        Open entry <ArrowRightIcon className="size-3.5" />
      </Link>
    </div>
  );
}
