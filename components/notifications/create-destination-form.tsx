'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyField } from '@/components/ui/copy-button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { createDestinationAction } from '@/lib/domain/notifications/actions';
import { createDestinationSchema, notificationKindLabels, notificationKinds, type CreateDestinationInput } from '@/lib/domain/notifications/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

/** Adds a notification destination; a signed one's secret is shown here once. */
export function CreateDestinationForm({ factorySlug }: { factorySlug: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  // Only in memory: shown once, gone on reload.
  const [secret, setSecret] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<CreateDestinationInput>({
    resolver: zodResolver(createDestinationSchema),
    defaultValues: { name: '', kind: 'standard_webhooks', url: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSecret(null);
    const result = await reach(createDestinationAction)(factorySlug, values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name', 'kind', 'url']));
      return;
    }
    reset({ name: '', kind: values.kind, url: '' });
    setSecret(result.data.secret);
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-3" aria-label="Add destination">
      <FormError message={formError} />
      {secret ? (
        <Alert tone="success" title="Destination added. Copy its signing secret now: you will not see it again">
          <p className="mt-1">The receiver verifies each notification’s webhook-signature header with it (Standard Webhooks).</p>
          <Field label="Signing secret" className="mt-3">
            <CopyField value={secret} copyLabel="Copy secret" className="bg-surface" />
          </Field>
        </Alert>
      ) : null}
      <div className="grid gap-3 sm:grid-cols-[minmax(0,12rem)_minmax(0,19rem)_minmax(0,1fr)]">
        <Field label="Name" error={formState.errors.name?.message}>
          <Input autoComplete="off" placeholder="e.g. on-call" {...register('name')} />
        </Field>
        <Field label="Kind" error={formState.errors.kind?.message}>
          <Select {...register('kind')}>
            {notificationKinds.map((kind) => (
              <option key={kind} value={kind}>
                {notificationKindLabels[kind]}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="URL" error={formState.errors.url?.message}>
          <Input type="url" mono autoComplete="off" spellCheck={false} placeholder="https://" {...register('url')} />
        </Field>
      </div>
      <div>
        <Button type="submit" loading={formState.isSubmitting}>
          Add destination
        </Button>
      </div>
    </ClientForm>
  );
}
