'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm, useWatch, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { ClientForm } from '@/components/forms/client-form';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ChoiceCardRadio } from '@/components/ui/choice-card-radio';
import { cn } from '@/components/ui/cn';
import { Field } from '@/components/ui/field';
import { Select } from '@/components/ui/select';
import { Textarea } from '@/components/ui/textarea';
import { statusLabels } from '@/components/webhooks/custom-response-summary';
import { setCustomResponseAction } from '@/lib/domain/webhooks/actions';
import { customResponseFormSchema, type CustomResponseFormValues } from '@/lib/domain/webhooks/schemas';
import { CUSTOM_RESPONSE_CONTENT_TYPES, DELIVERY_ID_PLACEHOLDER, MAX_CUSTOM_RESPONSE_BODY_BYTES, type CustomResponse } from '@/lib/ingress/custom-response';
import { reach } from '@/components/forms/reach';

type Output = z.output<typeof customResponseFormSchema>;

const resolver = zodResolver(customResponseFormSchema) as unknown as Resolver<CustomResponseFormValues, unknown, Output>;

const contentTypeLabels: Record<(typeof CUSTOM_RESPONSE_CONTENT_TYPES)[number], string> = {
  'application/json': 'JSON (application/json)',
  'text/plain; charset=utf-8': 'Text (text/plain)',
  'application/xml': 'XML (application/xml)',
};
const bodyPlaceholders: Record<string, string> = {
  'application/json': `{"received": true, "id": "${DELIVERY_ID_PLACEHOLDER}"}`,
  'text/plain; charset=utf-8': '[accepted]',
  'application/xml': `<received id="${DELIVERY_ID_PLACEHOLDER}"/>`,
};

const modes = [
  { value: 'default', label: 'Tripline’s answer', description: '202 Accepted with {"delivery_id": "…"} in JSON.' },
  { value: 'custom', label: 'A custom response', description: 'The status, content type and body a sender expects.' },
] as const;

const formValues = (response: CustomResponse | null): CustomResponseFormValues => ({
  mode: response ? 'custom' : 'default',
  customResponse: {
    status: String(response?.status ?? 200),
    contentType: response?.contentType ?? 'application/json',
    body: response?.body ?? '',
  },
});

/**
 * The answer a sender receives for an accepted or duplicate delivery: the
 * default 202 {"delivery_id"}, or a custom status, content type and body.
 * A 204 has neither content type nor body, so their fields go away.
 */
export function CustomResponseForm({ factorySlug, uid, response }: { factorySlug: string; uid: string; response: CustomResponse | null }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, control } = useForm<CustomResponseFormValues, unknown, Output>({
    resolver,
    defaultValues: formValues(response),
  });
  const [mode, status, contentType, body] = useWatch({ control, name: ['mode', 'customResponse.status', 'customResponse.contentType', 'customResponse.body'] });
  const errors = formState.errors.customResponse;
  const bytes = new TextEncoder().encode(body ?? '').length;

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSaved(null);
    const result = await reach(setCustomResponseAction)(factorySlug, { uid, customResponse: values.customResponse });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['customResponse.status', 'customResponse.contentType', 'customResponse.body']));
      return;
    }
    setSaved(values.customResponse ? 'Saved. New deliveries get this response.' : 'Saved. New deliveries get Tripline’s 202 answer.');
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-4" aria-label="Response">
      <FormError message={formError} />
      {saved ? <Alert tone="success">{saved}</Alert> : null}
      <fieldset className="flex flex-col gap-2">
        <legend className="sr-only">Answer accepted deliveries with</legend>
        <div className="grid gap-3 md:grid-cols-2">
          {modes.map((choice) => (
            <ChoiceCardRadio key={choice.value} value={choice.value} label={choice.label} description={choice.description} {...register('mode')} />
          ))}
        </div>
      </fieldset>

      {mode === 'custom' ? (
        <div className="flex flex-col gap-4 rounded-lg border border-line bg-subtle/50 p-4">
          <div className="flex flex-col gap-4 sm:flex-row">
            <Field className="sm:w-48" label="Status" error={errors?.status?.message}>
              <Select {...register('customResponse.status')}>
                {Object.entries(statusLabels).map(([code, label]) => (
                  <option key={code} value={code}>
                    {label}
                  </option>
                ))}
              </Select>
            </Field>
            {status === '204' ? null : (
              <Field className="sm:w-64" label="Content type" error={errors?.contentType?.message}>
                <Select {...register('customResponse.contentType')}>
                  {CUSTOM_RESPONSE_CONTENT_TYPES.map((type) => (
                    <option key={type} value={type}>
                      {contentTypeLabels[type]}
                    </option>
                  ))}
                </Select>
              </Field>
            )}
          </div>
          {status === '204' ? (
            <p className="text-[13px] leading-5 text-fg-muted">A 204 response has no body and no content type.</p>
          ) : (
            <Field
              label="Body"
              error={errors?.body?.message}
              labelAside={
                <span className={cn('tabular-nums', bytes > MAX_CUSTOM_RESPONSE_BODY_BYTES ? 'font-medium text-red-700' : 'text-fg-subtle')}>
                  {bytes.toLocaleString('en')} / {MAX_CUSTOM_RESPONSE_BODY_BYTES.toLocaleString('en')} bytes
                </span>
              }
              hint={
                <>
                  <code className="font-mono text-[12px]">{DELIVERY_ID_PLACEHOLDER}</code> is replaced by the delivery’s ID, escaped for the content type
                  (inside a JSON string, as XML text); no other <code className="font-mono text-[12px]">{'{{…}}'}</code> placeholder is known. A JSON body must
                  be valid JSON.
                </>
              }
            >
              <Textarea mono rows={5} spellCheck={false} autoComplete="off" placeholder={bodyPlaceholders[contentType]} {...register('customResponse.body')} />
            </Field>
          )}
        </div>
      ) : null}

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" loading={formState.isSubmitting}>
          Save response
        </Button>
        <p className="text-[13px] text-fg-muted">Errors (401, 413, 429 …) and verification handshakes keep their own answers.</p>
      </div>
    </ClientForm>
  );
}
