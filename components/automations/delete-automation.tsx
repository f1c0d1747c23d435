'use client';

import { DeleteSection } from '@/components/ui/delete-section';
import { deleteAutomationAction } from '@/lib/domain/automations/actions';
import { reach } from '@/components/forms/reach';

export function DeleteAutomation({ factorySlug, id, name, runCount }: { factorySlug: string; id: string; name: string; runCount: number }) {
  const runs = runCount === 0 ? 'It has no runs.' : `Its ${runCount === 1 ? 'run is' : `${runCount.toLocaleString('en')} runs are`} deleted too.`;
  return (
    <DeleteSection
      label="Delete automation"
      confirmTitle={`Delete ${name}?`}
      consequences={`Its triggers stop at once and no new run starts. ${runs} The webhooks and their delivery logs are kept.`}
      remove={() => reach(deleteAutomationAction)(factorySlug, { id })}
      redirectTo={`/f/${factorySlug}/automations`}
    />
  );
}
