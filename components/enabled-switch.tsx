'use client';

import { useRouter } from 'next/navigation';
import { useId, useOptimistic, useState, useTransition } from 'react';
import { Switch } from '@/components/ui/switch';
import type { ActionResult } from '@/lib/adapters/actions/action';

/** An "Enabled" switch that saves through a server action, shows the new state at once, and says why when saving fails. */
export function EnabledSwitch({
  enabled,
  description,
  save,
  label = 'Enabled',
  accessibleName,
  size,
}: {
  enabled: boolean;
  description: string;
  save: (enabled: boolean) => Promise<ActionResult<unknown>>;
  label?: string;
  /** The switch's name for assistive technology when the page has several (e.g. "Enabled: on-call"). */
  accessibleName?: string;
  size?: 'sm' | 'md';
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const [checked, setChecked] = useOptimistic(enabled);
  const errorId = useId();

  const toggle = (next: boolean) =>
    startTransition(async () => {
      setError(null);
      setChecked(next);
      const result = await save(next);
      if (!result.ok) setError(result.error.message);
      router.refresh();
    });

  return (
    <div className="flex flex-col gap-2">
      <Switch
        label={label}
        aria-label={accessibleName}
        aria-describedby={error ? errorId : undefined}
        aria-invalid={error ? true : undefined}
        description={description}
        checked={checked}
        disabled={pending}
        onCheckedChange={toggle}
        size={size}
      />
      {error ? (
        <p id={errorId} role="alert" className="pl-12 text-[13px] text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
