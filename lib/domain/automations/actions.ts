'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { createAutomationSchema, pastedBodySchema, triggerSchema, updateAutomationSchema } from '@/lib/domain/automations/schemas';
import { createAutomation, deleteAutomation, updateAutomation } from '@/lib/domain/automations/service';
import { runBacktest } from '@/lib/domain/automations/backtest-gate';
import { testTrigger, testTriggerOnBody } from '@/lib/domain/automations/test-filter';
import { listDeliveries } from '@/lib/domain/deliveries/service';
import { webhookUidSchema } from '@/lib/domain/webhooks/schemas';

// Dashboard adapters over lib/domain/automations. Editing needs the editor role.
// Testing a filter changes nothing and shows only what a member can already
// read (the delivery log), so every member may test, as in the API.

const automationsPath = (slug: string) => `/f/${slug}/automations`;

const automationIdSchema = z.object({ id: z.string().trim().min(1).max(100) });

export const createAutomationAction = factoryAction('automations:edit', createAutomationSchema, async ({ factory }, input) => {
  const automation = await createAutomation(factory.id, input);
  revalidatePath(automationsPath(factory.slug), 'layout');
  return { id: automation.id };
});

export const updateAutomationAction = factoryAction(
  'automations:edit',
  updateAutomationSchema.extend(automationIdSchema.shape),
  async ({ factory }, { id, ...input }) => {
    await updateAutomation(factory.id, id, input);
    revalidatePath(automationsPath(factory.slug), 'layout');
    return null;
  },
);

export const deleteAutomationAction = factoryAction('automations:edit', automationIdSchema, async ({ factory }, input) => {
  await deleteAutomation(factory.id, input.id);
  revalidatePath(automationsPath(factory.slug), 'layout');
  return null;
});

/** Test filter: a trigger as written in the editor (saved or not) against a stored delivery, with the saved run control's preview. */
export const testTriggerAction = factoryAction(
  'factory:read',
  z.strictObject({
    trigger: triggerSchema,
    deliveryId: z.string().trim().min(1, 'Pick a delivery').max(100),
    automationEnabled: z.boolean(),
    // A saved automation's: its run control says what would happen now. testTrigger checks it is this factory's.
    automationId: z.string().trim().min(1).max(100).optional(),
  }),
  async ({ factory }, input) => testTrigger(factory.id, input),
);

/** Test filter on a pasted body: a payload that has not arrived yet. */
export const testTriggerOnBodyAction = factoryAction(
  'factory:read',
  z.strictObject({ trigger: triggerSchema, body: pastedBodySchema, automationEnabled: z.boolean() }),
  async ({ factory }, input) => testTriggerOnBody(factory.id, input),
);

const TEST_DELIVERIES_LIMIT = 20;

/** The recent Accepted deliveries of a webhook, offered by Test filter (only they keep a payload). */
export const listTestDeliveriesAction = factoryAction('factory:read', webhookUidSchema, async ({ factory }, input) => {
  const page = await listDeliveries(factory.id, input.uid, { status: 'accepted', limit: TEST_DELIVERIES_LIMIT });
  return page.deliveries.map((delivery) => ({ id: delivery.id, deliveryId: delivery.deliveryId, receivedAt: delivery.receivedAt }));
});

/** Backtest: a trigger as written in the editor (saved or not) over every Accepted delivery of its webhook in the retained log. */
export const backtestTriggerAction = factoryAction('factory:read', z.strictObject({ trigger: triggerSchema }), async ({ factory }, input) =>
  runBacktest(factory.id, input),
);
