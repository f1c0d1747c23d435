'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Controller, useFieldArray, useForm, useWatch, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { CheckCircleIcon } from '@/components/ui/icons';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { Switch } from '@/components/ui/switch';
import { Textarea } from '@/components/ui/textarea';
import { createAutomationAction, updateAutomationAction } from '@/lib/automations/actions';
import { MAX_TRIGGERS, type CreateAutomationInput } from '@/lib/automations/schemas';
import {
  automationFormSchema,
  emptyTrigger,
  formField,
  readPayloadFilter,
  triggerFormSchema,
  type AutomationFormValues,
} from './form-values';
import { Backtest } from './backtest';
import { TestFilter, type TriggerToTest } from './test-filter';
import { firesNever, TriggerWebhookBadge, webhookOptionLabel, type WebhookOption } from './webhook-option';

type FormControl = Control<AutomationFormValues, unknown, CreateAutomationInput>;

const FILTER_PLACEHOLDER = '{\n  "action": ["opened", "reopened"],\n  "pull_request": { "draft": false }\n}';

/** The payload filter's JSON editor: checked as you type, every problem in words under it. */
function FilterEditor({
  index,
  control,
  register,
  serverError,
  readOnly,
}: {
  index: number;
  control: FormControl;
  register: UseFormRegister<AutomationFormValues>;
  serverError: string | undefined;
  readOnly: boolean;
}) {
  const text = useWatch({ control, name: `triggers.${index}.payload` });
  const read = readPayloadFilter(text ?? '');
  const error = read.ok ? serverError : read.messages.length === 1 ? read.messages[0] : (
    <ul className="flex list-disc flex-col gap-0.5 pl-4">
      {read.messages.map((message, i) => (
        <li key={i}>{message}</li>
      ))}
    </ul>
  );
  return (
    <Field
      label="Payload filter"
      optional
      error={error}
      hint={
        read.ok && read.filter === null
          ? 'No filter: every delivery of the webhook starts a run. Write a JSON object shaped like the body to choose; every key must match.'
          : 'A JSON object shaped like the body; every key must match. A list gives the allowed values; {"in"}, {"not_in"} and {"exists"} are the operators.'
      }
    >
      <Textarea
        mono
        // Grows with the filter, within reason.
        rows={Math.min(Math.max((text ?? '').split('\n').length + 1, 4), 16)}
        spellCheck={false}
        autoComplete="off"
        placeholder={FILTER_PLACEHOLDER}
        readOnly={readOnly}
        {...register(`triggers.${index}.payload`)}
      />
    </Field>
  );
}

function TriggerFields({
  index,
  factorySlug,
  control,
  register,
  errors,
  webhooks,
  readOnly,
  onRemove,
  readTrigger,
}: {
  index: number;
  factorySlug: string;
  control: FormControl;
  register: UseFormRegister<AutomationFormValues>;
  errors: FieldErrors<AutomationFormValues>;
  webhooks: WebhookOption[];
  readOnly: boolean;
  onRemove: () => void;
  readTrigger: (index: number) => { trigger: TriggerToTest; automationEnabled: boolean };
}) {
  const [trigger, enabled] = useWatch({ control, name: [`triggers.${index}`, 'enabled'] });
  const webhook = webhooks.find((w) => w.uid === trigger.webhookUid);
  const fieldErrors = errors.triggers?.[index];
  const live = webhooks.filter((w) => !firesNever(w.state));
  const name = webhook ? (webhook.name ?? webhook.uid) : trigger.webhookUid;

  return (
    <li aria-label={`Trigger ${index + 1}`} className="flex flex-col gap-5 rounded-lg border border-line p-4">
      <div className="flex items-center justify-between gap-3">
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="font-medium text-fg">Trigger {index + 1}</h3>
          <span className="text-[13px] text-fg-subtle">Webhook · received</span>
          {webhook ? <TriggerWebhookBadge state={webhook.state} /> : null}
        </div>
        {readOnly ? null : (
          <Button type="button" variant="ghost" size="sm" onClick={onRemove}>
            Remove<span className="sr-only"> trigger {index + 1}</span>
          </Button>
        )}
      </div>
      <Field
        label="Webhook"
        required
        error={fieldErrors?.webhookUid?.message}
        hint={
          webhook && firesNever(webhook.state)
            ? `The webhook ${name} was ${webhook.state === 'deleted' ? 'deleted' : 'not found'}: this trigger never fires. Pick a live webhook or remove the trigger.`
            : webhook?.state === 'disabled'
              ? `${name} is disabled: it accepts no deliveries until an admin enables it again.`
              : webhook?.state === 'awaiting_secret'
                ? `${name} refuses every request until an admin enters the provider’s secret.`
                : 'Deliveries to this webhook that match the payload filter start a run.'
        }
      >
        <Select placeholder={live.length ? 'Choose a webhook' : 'No webhooks yet: an admin creates them on the Webhooks tab'} disabled={readOnly} {...register(`triggers.${index}.webhookUid`)}>
          {webhooks.map((option) => (
            // A deleted webhook stays listed only for the trigger that kept it, and cannot be picked again.
            <option key={option.uid} value={option.uid} disabled={firesNever(option.state)}>
              {webhookOptionLabel(option)}
            </option>
          ))}
        </Select>
      </Field>
      <FilterEditor index={index} control={control} register={register} serverError={fieldErrors?.payload?.message} readOnly={readOnly} />
      <TestFilter
        factorySlug={factorySlug}
        webhook={webhook ? { uid: webhook.uid, name, listable: !firesNever(webhook.state) } : null}
        version={JSON.stringify([trigger, enabled])}
        readTrigger={() => readTrigger(index)}
      />
      <Backtest
        factorySlug={factorySlug}
        listable={webhook ? !firesNever(webhook.state) : false}
        // Enabled plays no part: Backtest looks at the filter alone.
        version={JSON.stringify(trigger)}
        readTrigger={() => readTrigger(index).trigger}
      />
    </li>
  );
}

/**
 * The automation editor (new and existing): name, prompt, Enabled and the
 * webhook triggers. Viewers get the same page with every control read-only;
 * Test filter stays available to them since it changes nothing.
 */
export function AutomationForm({
  factorySlug,
  automationId,
  initialValues,
  webhooks,
  readOnly = false,
}: {
  factorySlug: string;
  /** Absent for a new automation. */
  automationId?: string;
  initialValues: AutomationFormValues;
  /** The factory's webhooks, plus deleted ones still named by a saved trigger. */
  webhooks: WebhookOption[];
  readOnly?: boolean;
}) {
  const router = useRouter();
  const automationsPath = `/f/${factorySlug}/automations`;
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { register, control, handleSubmit, formState, setError, getValues, trigger: validate, reset } = useForm<
    AutomationFormValues,
    unknown,
    CreateAutomationInput
  >({ resolver: zodResolver(automationFormSchema), defaultValues: initialValues });
  const { fields, append, remove } = useFieldArray({ control, name: 'triggers' });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSaved(false);
    const result = automationId
      ? await updateAutomationAction(factorySlug, { id: automationId, ...values })
      : await createAutomationAction(factorySlug, values);
    if (!result.ok) {
      const serverFields = Object.fromEntries(Object.entries(result.error.fields ?? {}).map(([key, message]) => [formField(key), message]));
      const names = ['name', 'prompt', 'enabled', ...fields.flatMap((_, i) => [`triggers.${i}.webhookUid`, `triggers.${i}.payload`])];
      setFormError(applyFieldErrors({ ...result.error, fields: serverFields }, setError, names));
      return;
    }
    if (result.data) {
      router.push(`${automationsPath}/${result.data.id}`);
      return;
    }
    reset(getValues());
    setSaved(true);
    router.refresh();
  });

  /** One trigger as written now, for Test filter; problems go next to its fields too. */
  const readTrigger = (index: number): { trigger: TriggerToTest; automationEnabled: boolean } => {
    const parsed = triggerFormSchema.safeParse(getValues(`triggers.${index}`));
    const automationEnabled = getValues('enabled');
    if (parsed.success) return { trigger: { ok: true, trigger: parsed.data }, automationEnabled };
    if (!readOnly) void validate([`triggers.${index}.webhookUid`, `triggers.${index}.payload`]);
    return { trigger: { ok: false, message: `Fix this trigger to test it: ${parsed.error.issues[0]?.message ?? 'it is not valid'}.` }, automationEnabled };
  };

  return (
    <form onSubmit={onSubmit} noValidate aria-label={automationId ? 'Automation' : 'New automation'} className="flex flex-col gap-6">
      <FormError message={formError} />
      <Card>
        <CardHeader title="Automation" description="A run starts with the prompt, followed by an envelope that names the webhook and the delivery." />
        <CardBody className="flex flex-col gap-6">
          <Field label="Name" required error={formState.errors.name?.message}>
            <Input autoComplete="off" placeholder="Triage new issues" readOnly={readOnly} {...register('name')} />
          </Field>
          <Field
            label="Prompt"
            required
            error={formState.errors.prompt?.message}
            hint="What the agent should do. The delivery’s full JSON body is attached to each run as event-payload.json."
          >
            <Textarea rows={8} placeholder="Read the issue in event-payload.json and label it." readOnly={readOnly} {...register('prompt')} />
          </Field>
          <Controller
            control={control}
            name="enabled"
            render={({ field }) => (
              <Switch
                label="Enabled"
                description="A disabled automation starts no runs; its triggers and past runs are kept."
                checked={field.value}
                onCheckedChange={field.onChange}
                onBlur={field.onBlur}
                disabled={readOnly}
              />
            )}
          />
        </CardBody>
      </Card>

      <Card>
        <CardHeader
          title="Triggers"
          description="A delivery to a trigger’s webhook that matches its payload filter starts a run. For several webhooks, add one trigger each."
          actions={
            readOnly ? null : (
              <Button type="button" variant="secondary" size="sm" disabled={fields.length >= MAX_TRIGGERS} onClick={() => append(emptyTrigger)}>
                Add trigger
              </Button>
            )
          }
        />
        <CardBody>
          {fields.length === 0 ? (
            <p className="rounded-lg border border-dashed border-line-strong px-4 py-6 text-center text-fg-muted">
              No triggers: this automation never runs.{readOnly ? '' : ' Add a trigger to start it from a webhook’s deliveries.'}
            </p>
          ) : (
            <ol className="flex flex-col gap-4">
              {fields.map((field, index) => (
                <TriggerFields
                  key={field.id}
                  index={index}
                  factorySlug={factorySlug}
                  control={control}
                  register={register}
                  errors={formState.errors}
                  webhooks={webhooks}
                  readOnly={readOnly}
                  onRemove={() => remove(index)}
                  readTrigger={readTrigger}
                />
              ))}
            </ol>
          )}
        </CardBody>
        {readOnly ? null : (
          <CardFooter align="between">
            <p role="status" className="text-[13px] text-fg-muted">
              {formState.isDirty ? (
                'Unsaved changes'
              ) : saved ? (
                <span className="inline-flex items-center gap-1.5 text-emerald-700">
                  <CheckCircleIcon className="size-3.5" />
                  Saved
                </span>
              ) : null}
            </p>
            <div className="flex gap-2">
              <ButtonLink href={automationsPath} variant="secondary">
                {automationId ? 'Back to automations' : 'Cancel'}
              </ButtonLink>
              <Button type="submit" loading={formState.isSubmitting}>
                {automationId ? 'Save changes' : 'Create automation'}
              </Button>
            </div>
          </CardFooter>
        )}
      </Card>
    </form>
  );
}
