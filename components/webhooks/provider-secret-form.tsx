'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { setProviderSecretAction } from '@/lib/domain/webhooks/actions';
import { providerSecretSchema } from '@/lib/domain/webhooks/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

type Values = z.input<typeof providerSecretSchema>;

/** Enters the secret a provider issued: the second step after creation, and later replacements. */
export function ProviderSecretForm({
  factorySlug,
  uid,
  hint,
  submitLabel,
  successMessage,
}: {
  factorySlug: string;
  uid: string;
  hint?: string;
  submitLabel: string;
  /** Shown after saving, when the form stays on the page. */
  successMessage?: string;
}) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { register, handleSubmit, formState, setError, reset } = useForm<Values>({
    resolver: zodResolver(providerSecretSchema),
    defaultValues: { secret: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSaved(false);
    const result = await reach(setProviderSecretAction)(factorySlug, { uid, secret: values.secret });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['secret']));
      return;
    }
    reset({ secret: '' });
    setSaved(true);
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-3" aria-label={submitLabel}>
      <FormError message={formError} />
      {saved && successMessage ? <Alert tone="success">{successMessage}</Alert> : null}
      <div className="flex flex-wrap items-start gap-3">
        <Field className="min-w-64 flex-1" label="Provider secret" error={formState.errors.secret?.message} hint={hint}>
          <Input type="password" mono autoComplete="off" spellCheck={false} {...register('secret')} />
        </Field>
        <Button type="submit" className="mt-[1.625rem]" loading={formState.isSubmitting}>
          {submitLabel}
        </Button>
      </div>
    </ClientForm>
  );
}
