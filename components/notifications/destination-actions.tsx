'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { EnabledSwitch } from '@/components/enabled-switch';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { deleteDestinationAction, sendTestNotificationAction, setDestinationEnabledAction } from '@/lib/domain/notifications/actions';
import { reach } from '@/components/forms/reach';

/** Enabled, Send test notification and Delete, for one destination. */
export function DestinationActions({ factorySlug, id, name, enabled }: { factorySlug: string; id: string; name: string; enabled: boolean }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const [sending, setSending] = useState(false);

  const test = async () => {
    setSending(true);
    setMessage(null);
    const result = await reach(sendTestNotificationAction)(factorySlug, { id });
    setSending(false);
    setMessage(result.ok ? { tone: 'ok', text: 'Queued: it appears in the log below when sent.' } : { tone: 'error', text: result.error.message });
    router.refresh();
  };
  const remove = async () => {
    const result = await reach(deleteDestinationAction)(factorySlug, { id });
    if (!result.ok) setMessage({ tone: 'error', text: result.error.message });
    router.refresh();
  };

  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <EnabledSwitch
        enabled={enabled}
        accessibleName={`Enabled: ${name}`}
        size="sm"
        description={enabled ? 'Receives this factory’s events.' : 'Receives nothing; queued notifications were marked failed.'}
        save={(next) => reach(setDestinationEnabledAction)(factorySlug, { id, enabled: next })}
      />
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          size="sm"
          loading={sending}
          disabled={!enabled}
          title={enabled ? undefined : 'Enable the destination to send it a test'}
          onClick={test}
          aria-label={`Send test notification to ${name}`}
        >
          Send test notification
        </Button>
        <ConfirmDialog
          trigger="Delete"
          triggerVariant="secondary"
          triggerSize="sm"
          title={`Delete the destination ${name}?`}
          description="Its queued notifications are dropped and it receives nothing more."
          confirmLabel="Delete destination"
          onConfirm={remove}
        />
      </div>
      {message ? (
        <p role="status" className={message.tone === 'ok' ? 'text-[13px] text-fg-muted' : 'text-[13px] text-red-700'}>
          {message.text}
        </p>
      ) : null}
    </div>
  );
}
