'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/auth/apply-field-errors';
import { FormError } from '@/components/auth/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { roleDescriptions, roleLabels, roles } from '@/lib/auth/roles';
import { addMemberAction } from '@/lib/members/actions';
import { addMemberSchema, type AddMemberInput } from '@/lib/members/schemas';

export function AddMemberForm({ factorySlug }: { factorySlug: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<AddMemberInput>({
    resolver: zodResolver(addMemberSchema),
    defaultValues: { email: '', role: 'viewer' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setAdded(null);
    const result = await addMemberAction(factorySlug, values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['email', 'role']));
      return;
    }
    setAdded(result.data.email);
    reset({ email: '', role: values.role });
    router.refresh();
  });

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" aria-label="Add a member">
      <FormError message={formError} />
      {added ? <Alert tone="success">{added} was added.</Alert> : null}
      <div className="grid grid-cols-[minmax(0,1fr)_12rem_auto] items-start gap-3">
        <Field label="Email" error={formState.errors.email?.message} hint="The person needs a Tripline account already.">
          <Input type="email" placeholder="teammate@example.com" {...register('email')} />
        </Field>
        <Field label="Role" error={formState.errors.role?.message}>
          <Select {...register('role')}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleLabels[role]}: {roleDescriptions[role].toLowerCase()}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" className="mt-[1.625rem]" loading={formState.isSubmitting}>
          Add member
        </Button>
      </div>
    </form>
  );
}
