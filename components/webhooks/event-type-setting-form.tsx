'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm, useWatch, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { EventTypeField, type EventTypeFieldValues } from '@/components/webhooks/event-type-field';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { setEventTypeSettingAction } from '@/lib/domain/webhooks/actions';
import { eventTypeSettingFormSchema } from '@/lib/domain/webhooks/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

type Output = z.output<typeof eventTypeSettingFormSchema>;

const schemaResolver = zodResolver(eventTypeSettingFormSchema) as unknown as Resolver<EventTypeFieldValues, unknown, Output>;

// Only the field the selector shows is submitted: the other one is removed.
const resolver: Resolver<EventTypeFieldValues, unknown, Output> = (values, context, options) =>
  schemaResolver(
    {
      ...values,
      eventTypeHeader: values.eventTypeFrom === 'header' ? values.eventTypeHeader : '',
      eventTypePath: values.eventTypeFrom === 'path' ? values.eventTypePath : '',
    },
    context,
    options,
  );

/**
 * Changes a bearer or URL token webhook's Event type setting after creation.
 * An empty input removes it. Entries already in the log keep the type they
 * were given when they arrived.
 */
export function EventTypeSettingForm({
  factorySlug,
  uid,
  header,
  path,
}: {
  factorySlug: string;
  uid: string;
  header: string | null;
  path: string | null;
}) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, control } = useForm<EventTypeFieldValues, unknown, Output>({
    resolver,
    defaultValues: { eventTypeFrom: path ? 'path' : 'header', eventTypeHeader: header ?? '', eventTypePath: path ?? '' },
  });
  const from = useWatch({ control, name: 'eventTypeFrom' });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSaved(null);
    const result = await reach(setEventTypeSettingAction)(factorySlug, { uid, ...values });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['eventTypeHeader', 'eventTypePath']));
      return;
    }
    setSaved(values.eventTypeHeader || values.eventTypePath ? 'Saved. New deliveries take their type from it.' : 'Removed. New deliveries have no event type.');
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-3" aria-label="Event type setting">
      <FormError message={formError} />
      {saved ? <Alert tone="success">{saved}</Alert> : null}
      <div className="flex flex-col gap-3 lg:flex-row lg:items-start">
        <EventTypeField
          register={register}
          from={from}
          className="min-w-0 flex-1"
          error={formState.errors[from === 'path' ? 'eventTypePath' : 'eventTypeHeader']?.message}
          hintSuffix="Leave it empty for none. Entries already in the log keep the type they arrived with."
        />
        <Button type="submit" className="self-start lg:mt-[1.625rem]" loading={formState.isSubmitting}>
          Save event type
        </Button>
      </div>
    </ClientForm>
  );
}
