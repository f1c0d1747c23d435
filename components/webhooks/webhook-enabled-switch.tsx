'use client';

import { useRouter } from 'next/navigation';
import { useOptimistic, useState, useTransition } from 'react';
import { Switch } from '@/components/ui/switch';
import { setWebhookEnabledAction } from '@/lib/webhooks/actions';

export function WebhookEnabledSwitch({ factorySlug, uid, enabled }: { factorySlug: string; uid: string; enabled: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [checked, setChecked] = useOptimistic(enabled);

  const toggle = (next: boolean) =>
    startTransition(async () => {
      setError(null);
      setChecked(next);
      const result = await setWebhookEnabledAction(factorySlug, { uid, enabled: next });
      if (!result.ok) setError(result.error.message);
      router.refresh();
    });

  return (
    <div className="flex flex-col gap-2">
      <Switch
        label="Enabled"
        description="Disabled webhooks answer 404 and start nothing; their history is kept."
        checked={checked}
        disabled={pending}
        onCheckedChange={toggle}
      />
      {error ? (
        <p role="alert" className="pl-12 text-[13px] text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
