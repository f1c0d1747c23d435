'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyField } from '@/components/ui/copy-button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { roleDescriptions, roleLabels, roles, type Role } from '@/lib/domain/auth/roles';
import { createInvitationAction } from '@/lib/domain/invitations/actions';
import { createInvitationSchema, type CreateInvitationInput } from '@/lib/domain/invitations/schemas';
import { dateTimeFormat } from '@/components/format';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

/** Invites an email with a role; the link is shown once, from memory, and gone on reload. */
export function InviteForm({ factorySlug }: { factorySlug: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ url: string; email: string; role: Role; expiresAt: string } | null>(null);
  const { register, handleSubmit, formState, setError, reset, control } = useForm<CreateInvitationInput>({
    resolver: zodResolver(createInvitationSchema),
    defaultValues: { email: '', role: 'viewer' },
  });
  const role = useWatch({ control, name: 'role' }) ?? 'viewer';

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setCreated(null);
    const result = await reach(createInvitationAction)(factorySlug, values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['email', 'role']));
      return;
    }
    setCreated(result.data);
    reset({ email: '', role: values.role });
    router.refresh();
  });

  return (
    <div className="flex flex-col gap-4">
      {created ? (
        <Alert tone="success" title={`Invitation for ${created.email} (${roleLabels[created.role]}) created`}>
          <p className="mb-2">
            Copy the link now and send it to them: you will not see it again. It works once, until{' '}
            {dateTimeFormat.format(new Date(created.expiresAt))}, and lets them create an account or join with the one they have.
          </p>
          <Field label="Invitation link">
            <CopyField value={created.url} copyLabel="Copy link" className="bg-surface" />
          </Field>
        </Alert>
      ) : null}
      <ClientForm onSubmit={onSubmit} className="flex flex-col gap-4" aria-label="Invite someone">
        <FormError message={formError} />
        <div className="grid items-start gap-3 sm:grid-cols-[minmax(0,1fr)_11rem_auto]">
          <Field label="Email" error={formState.errors.email?.message} hint="Tripline makes a link; you send it to them.">
            <Input type="email" placeholder="teammate@example.com" {...register('email')} />
          </Field>
          <Field label="Role" error={formState.errors.role?.message} hint={roleDescriptions[role]}>
            <Select {...register('role')}>
              {roles.map((option) => (
                <option key={option} value={option}>
                  {roleLabels[option]}
                </option>
              ))}
            </Select>
          </Field>
          <Button type="submit" className="justify-self-start sm:mt-[1.625rem]" loading={formState.isSubmitting}>
            Create invitation
          </Button>
        </div>
      </ClientForm>
    </div>
  );
}
