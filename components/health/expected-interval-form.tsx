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
import { Select } from '@/components/ui/select';
import { setExpectedIntervalAction } from '@/lib/domain/webhooks/actions';
import { expectedIntervalFormSchema, type ExpectedIntervalFormInput } from '@/lib/domain/webhooks/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

function initialValues(seconds: number | null): ExpectedIntervalFormInput {
  if (seconds === null) return { amount: '', unit: 'hours' };
  if (seconds % 86_400 === 0) return { amount: String(seconds / 86_400), unit: 'days' };
  if (seconds % 3_600 === 0) return { amount: String(seconds / 3_600), unit: 'hours' };
  return { amount: String(Math.round(seconds / 60)), unit: 'minutes' };
}

/** The expected interval: past it without an accepted delivery, the webhook is Silent. */
export function ExpectedIntervalForm({ factorySlug, uid, seconds }: { factorySlug: string; uid: string; seconds: number | null }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { register, handleSubmit, formState, setError } = useForm<ExpectedIntervalFormInput, unknown, number | null>({
    resolver: zodResolver(expectedIntervalFormSchema),
    defaultValues: initialValues(seconds),
  });

  const onSubmit = handleSubmit(async (value) => {
    setFormError(null);
    setSaved(false);
    const result = await reach(setExpectedIntervalAction)(factorySlug, { uid, expectedIntervalSeconds: value });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['amount']));
      return;
    }
    setSaved(true);
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-3" aria-label="Expected interval">
      <FormError message={formError} />
      {saved ? <Alert tone="success">Saved.</Alert> : null}
      <div className="flex flex-wrap items-start gap-3">
        <Field
          className="w-52"
          label="Expected interval"
          optional
          error={formState.errors.amount?.message}
          hint="Empty: no expectation."
        >
          <Input inputMode="numeric" autoComplete="off" placeholder="e.g. 1" {...register('amount')} />
        </Field>
        <Field className="w-36" label="Unit" error={formState.errors.unit?.message}>
          <Select {...register('unit')}>
            <option value="minutes">minutes</option>
            <option value="hours">hours</option>
            <option value="days">days</option>
          </Select>
        </Field>
        <Button type="submit" className="mt-[1.625rem]" loading={formState.isSubmitting}>
          Save interval
        </Button>
      </div>
    </ClientForm>
  );
}
