'use server';

import { revalidatePath } from 'next/cache';
import { instanceAction } from '@/lib/adapters/actions/action';
import { setDisabledSchema, setInstanceAdminSchema } from '@/lib/domain/instance/schemas';
import { setInstanceAdmin, setUserDisabled } from '@/lib/domain/instance/service';

export const setUserDisabledAction = instanceAction(setDisabledSchema, async (user, input) => {
  await setUserDisabled(user.id, input);
  revalidatePath('/instance');
  return null;
});

export const setInstanceAdminAction = instanceAction(setInstanceAdminSchema, async (_user, input) => {
  await setInstanceAdmin(input);
  revalidatePath('/', 'layout');
  return null;
});
