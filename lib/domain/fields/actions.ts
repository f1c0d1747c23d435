'use server';

import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { triggerSchema } from '@/lib/domain/automations/schemas';
import { webhookUidSchema } from '@/lib/domain/webhooks/schemas';
import { countTriggerMatches, getFieldCatalogue } from './service';

// Dashboard adapters for the filter editor. Both read only what any member can
// already read (the delivery log), like Test filter and Backtest.

/** The field catalogue the editor completes from. */
export const fieldCatalogueAction = factoryAction('factory:read', webhookUidSchema, async ({ factory }, input) => getFieldCatalogue(factory.id, input.uid));

/** The editor's live count: how many of the latest accepted deliveries the trigger as written matches. */
export const countFilterMatchesAction = factoryAction('factory:read', z.strictObject({ trigger: triggerSchema }), async ({ factory }, { trigger }) =>
  countTriggerMatches(factory.id, trigger.filter.webhook_ids[0]!, trigger.filter),
);
