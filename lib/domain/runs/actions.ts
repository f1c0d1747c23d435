'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { cancelRun } from '@/lib/domain/runs/cancel';
import { replayDelivery } from '@/lib/domain/runs/replay';
import { webhookUidSchema } from '@/lib/domain/webhooks/schemas';

// Dashboard adapter over lib/domain/runs/replay. Replay starts runs (and so spends
// an agent's time) on a delivery that already arrived, so only admins may,
// as in the API; the check is the wrapper's, not the button's. Cancelling a
// run is an automation author's call: editors and admins, as in the API.

/** Replay: today's matching enabled automations that have not run for this delivery start one. */
export const replayDeliveryAction = factoryAction(
  'factory:manage',
  webhookUidSchema.extend({ id: z.string().trim().min(1).max(100) }),
  async ({ factory, user }, input) => {
    const result = await replayDelivery(factory.id, input.uid, input.id, user);
    revalidatePath(`/f/${factory.slug}/automations`, 'layout');
    return result;
  },
);

/** Cancel: a run that has not started ends at once; a running one is stopped by its worker. */
export const cancelRunAction = factoryAction('automations:edit', z.strictObject({ id: z.string().trim().min(1).max(100) }), async ({ factory, user }, input) => {
  const run = await cancelRun(factory.id, input.id, user);
  revalidatePath(`/f/${factory.slug}/automations`, 'layout');
  return { status: run.status };
});
