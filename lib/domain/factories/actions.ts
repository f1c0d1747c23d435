'use server';

import { userAction } from '@/lib/adapters/actions/action';
import { createFactorySchema } from '@/lib/domain/factories/schemas';
import { createFactory } from '@/lib/domain/factories/service';

// The service checks TRIPLINE_FACTORY_CREATION, so this action refuses exactly as the API and CLI do.
export const createFactoryAction = userAction(createFactorySchema, async (user, input) => {
  const factory = await createFactory(user.id, input);
  return { slug: factory.slug };
});
