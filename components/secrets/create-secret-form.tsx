'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { createSecretAction } from '@/lib/domain/secrets/actions';
import { createSecretSchema, type CreateSecretInput } from '@/lib/domain/secrets/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

export function CreateSecretForm({ factorySlug }: { factorySlug: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<CreateSecretInput>({
    resolver: zodResolver(createSecretSchema),
    defaultValues: { name: '', value: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setAdded(null);
    const result = await reach(createSecretAction)(factorySlug, values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name', 'value']));
      return;
    }
    setAdded(values.name);
    reset({ name: '', value: '' });
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-4" aria-label="Add a secret">
      <FormError message={formError} />
      {added ? <Alert tone="success">{added} was added. Name it as a webhook’s secret name to use it.</Alert> : null}
      <div className="grid items-start gap-3 md:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto]">
        <Field label="Name" error={formState.errors.name?.message} hint="Letters, digits and underscores, for example GITHUB_WEBHOOK_SECRET.">
          <Input mono autoComplete="off" spellCheck={false} placeholder="GITHUB_WEBHOOK_SECRET" {...register('name')} />
        </Field>
        <Field label="Value" error={formState.errors.value?.message} hint="Write-only: it cannot be read back.">
          <Input type="password" mono autoComplete="new-password" spellCheck={false} {...register('value')} />
        </Field>
        <Button type="submit" className="md:mt-[1.625rem]" loading={formState.isSubmitting}>
          Add secret
        </Button>
      </div>
    </ClientForm>
  );
}
