'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { Controller, useFieldArray, useForm, useWatch, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { CheckCircleIcon } from '@/components/ui/icons';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { ControlledSwitch } from '@/components/ui/controlled-switch';
import { Textarea } from '@/components/ui/textarea';
import { cn } from '@/components/ui/cn';
import { countFilterMatchesAction, fieldCatalogueAction } from '@/lib/domain/fields/actions';
import type { FieldCatalogue } from '@/lib/domain/fields/catalogue';
import { createAutomationAction, updateAutomationAction } from '@/lib/domain/automations/actions';
import { MAX_TRIGGERS, type CreateAutomationInput, type TriggerInput } from '@/lib/domain/automations/schemas';
import {
  automationFormSchema,
  emptyTrigger,
  formField,
  readEventTypes,
  readHeaderFilter,
  readPayloadFilter,
  splitEventTypes,
  toTrigger,
  triggerFormSchema,
  type AutomationFormValues,
  type TriggerFormValues,
} from './form-values';
import { Backtest } from './backtest';
import { FilterCodeEditor } from './filter-code-editor';
import { TestFilter, type TriggerToTest } from './test-filter';
import { firesNever, TriggerWebhookBadge, webhookOptionLabel, type WebhookOption } from './webhook-option';
import { ClientForm } from '@/components/forms/client-form';
import { RunControlFields } from './run-control-fields';
import { RUN_CONTROL_FIELDS } from './run-control-values';
import { reach } from '@/components/forms/reach';

type FormControl = Control<AutomationFormValues, unknown, CreateAutomationInput>;

const FILTER_PLACEHOLDER = '{\n  "action": ["opened", "reopened"],\n  "pull_request": { "draft": false }\n}';

/** The webhook's field catalogue, for completion; reloaded when the trigger's webhook changes. */
function useFieldCatalogue(factorySlug: string, uid: string | null): FieldCatalogue | null {
  const [loaded, setLoaded] = useState<{ uid: string; catalogue: FieldCatalogue } | null>(null);
  useEffect(() => {
    if (!uid) return;
    let current = true;
    void reach(fieldCatalogueAction)(factorySlug, { uid }).then((result) => {
      if (current && result.ok) setLoaded({ uid, catalogue: result.data });
    });
    return () => {
      current = false;
    };
  }, [factorySlug, uid]);
  return loaded && loaded.uid === uid ? loaded.catalogue : null;
}

const LIVE_COUNT_DELAY_MS = 400;

/** The trigger as written, for the live count; undefined while a part of it is not valid. */
function writtenTrigger(uid: string, values: TriggerFormValues | undefined): TriggerInput | undefined {
  const events = readEventTypes(values?.events ?? '');
  const headers = readHeaderFilter(values?.headers ?? '');
  const payload = readPayloadFilter(values?.payload ?? '');
  if (!events.ok || !headers.ok || !payload.ok) return undefined;
  return toTrigger(uid, { events: events.filter, headers: headers.filter, payload: payload.filter });
}

/** "Matches 37 of the last 500 deliveries": the trigger's filter as written (event types, headers, payload), counted on the server as you type. */
function LiveCount({ factorySlug, uid, values }: { factorySlug: string; uid: string | null; values: TriggerFormValues | undefined }) {
  const trigger = uid ? writtenTrigger(uid, values) : undefined;
  const filter = trigger?.filter;
  const unfiltered = filter !== undefined && !filter.events && !filter.headers && !filter.payload;
  const key = uid && trigger ? JSON.stringify(trigger) : null;
  const [count, setCount] = useState<{ key: string; matched: number; sampled: number } | { key: string; error: string } | null>(null);
  useEffect(() => {
    if (!key) return;
    let current = true;
    const timer = setTimeout(() => {
      void reach(countFilterMatchesAction)(factorySlug, { trigger: JSON.parse(key) as TriggerInput }).then((result) => {
        if (!current) return;
        setCount(result.ok ? { key, ...result.data } : { key, error: result.error.message });
      });
    }, LIVE_COUNT_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [factorySlug, key]);

  let text: ReactNode;
  if (!uid) text = 'Pick a webhook to see how many of its deliveries this filter matches.';
  else if (filter === undefined) text = 'Fix the filter to see how many deliveries it matches.';
  else if (!count || count.key !== key) text = 'Counting matching deliveries…';
  else if ('error' in count) text = count.error;
  else if (count.sampled === 0) text = 'No accepted delivery yet to count matches against.';
  else {
    text = (
      <>
        {unfiltered ? 'No filter: matches' : 'Matches'}{' '}
        <span className="font-semibold text-fg tabular-nums">
          {count.matched.toLocaleString('en')} of the last {count.sampled.toLocaleString('en')}
        </span>{' '}
        {count.sampled === 1 ? 'delivery' : 'deliveries'}
      </>
    );
  }
  return (
    <p role="status" aria-label="Live count" className="flex items-center gap-1.5 text-[13px] text-fg-muted">
      <span aria-hidden="true" className={cn('size-1.5 shrink-0 rounded-full', count && 'matched' in count && count.key === key && count.matched > 0 ? 'bg-emerald-500' : 'bg-zinc-300')} />
      <span>{text}</span>
    </p>
  );
}

/** The payload filter's code editor: completes from the webhook's fields, checked as you type, every problem in words under it. */
/** A part's problems as typed, else the server's message for it. */
function readError(read: { ok: true } | { ok: false; messages: string[] }, serverError: string | undefined): ReactNode {
  if (read.ok) return serverError;
  if (read.messages.length === 1) return read.messages[0];
  return (
    <ul className="flex list-disc flex-col gap-0.5 pl-4">
      {read.messages.map((message, i) => (
        <li key={i}>{message}</li>
      ))}
    </ul>
  );
}

const SUGGESTED_TYPES = 12;

/** One part of a trigger's filter in the editor: its field, the webhook's catalogue to complete from, the server's message for it. */
type PartFieldProps = { index: number; control: FormControl; catalogue: FieldCatalogue | null; serverError: string | undefined; readOnly: boolean };

/**
 * The trigger's event types: a list typed with commas or line breaks, checked
 * as you type, completed from the types the webhook's latest deliveries carried
 * (the field catalogue): each is one click to add.
 */
function EventTypesField({
  index,
  control,
  catalogue,
  serverError,
  readOnly,
}: PartFieldProps) {
  const text = useWatch({ control, name: `triggers.${index}.events` }) ?? '';
  const read = readEventTypes(text);
  const listed = new Set(splitEventTypes(text));
  const known = (catalogue?.eventTypes ?? []).filter((item) => !listed.has(item.type)).slice(0, SUGGESTED_TYPES);
  return (
    <Controller
      control={control}
      name={`triggers.${index}.events`}
      render={({ field }) => (
        <div className="flex flex-col gap-2">
          <Field
            label="Event types"
            optional
            error={readError(read, serverError)}
            hint={
              read.ok && read.filter === null
                ? 'None listed: every type starts a run, and so do deliveries without one. List types to choose, separated by commas, e.g. pull_request.opened, push. A * is a whole segment: pull_request.* matches pull_request.opened.'
                : 'Only deliveries of these types start a run (a delivery without a type does not). Separate them with commas; a * is a whole segment, one at the end matches one or more (pull_request.*).'
            }
          >
            <Input
              mono
              autoComplete="off"
              spellCheck={false}
              placeholder="pull_request.opened, push"
              readOnly={readOnly}
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              ref={field.ref}
            />
          </Field>
          {readOnly || known.length === 0 ? null : (
            <div role="group" aria-label="Event types seen on this webhook" className="flex flex-wrap items-center gap-1.5 text-[13px] text-fg-muted">
              <span>Seen on this webhook:</span>
              {known.map((item) => (
                <Button
                  key={item.type}
                  type="button"
                  variant="secondary"
                  size="sm"
                  className="font-mono"
                  aria-label={`Add event type ${item.type} (${item.count} of the latest deliveries)`}
                  onClick={() => field.onChange(text.trim() === '' ? item.type : `${text.replace(/[\s,]+$/, '')}, ${item.type}`)}
                >
                  {item.type}
                </Button>
              ))}
            </div>
          )}
        </div>
      )}
    />
  );
}

/** The trigger's header filter: JSON like the payload filter's, names case-insensitive. */
function HeaderFilterField({ index, control, serverError, readOnly }: Omit<PartFieldProps, 'catalogue'>) {
  const text = useWatch({ control, name: `triggers.${index}.headers` }) ?? '';
  const read = readHeaderFilter(text);
  return (
    <Controller
      control={control}
      name={`triggers.${index}.headers`}
      render={({ field }) => (
        <Field
          label="Header filter"
          optional
          error={readError(read, serverError)}
          hint='A JSON object of request headers and the values they must hold, with the payload filter’s operators: {"x-tenant": "acme"}. Names are case-insensitive; values are text. Headers that carry credentials or signatures cannot be filtered on.'
        >
          <Textarea mono rows={2} spellCheck={false} placeholder='{"x-tenant": "acme"}' readOnly={readOnly} value={field.value} onChange={field.onChange} onBlur={field.onBlur} ref={field.ref} />
        </Field>
      )}
    />
  );
}

function FilterEditor({
  index,
  control,
  catalogue,
  serverError,
  readOnly,
}: PartFieldProps) {
  const text = useWatch({ control, name: `triggers.${index}.payload` });
  const read = readPayloadFilter(text ?? '');
  const error = readError(read, serverError);
  return (
    <div className="flex flex-col gap-2">
      <Field
        label="Payload filter"
        optional
        error={error}
        hint={
          read.ok && read.filter === null
            ? 'No filter: every delivery of the webhook starts a run. Write a JSON object shaped like the body to choose; every key must match. Typing offers the webhook’s fields and their values.'
            : 'A JSON object shaped like the body; every key must match. A list gives the allowed values; {"in"}, {"not_in"} and {"exists"} are the operators. Typing offers the webhook’s fields and their values (Ctrl+Space to ask).'
        }
      >
        {(controlProps) => (
          <Controller
            control={control}
            name={`triggers.${index}.payload`}
            render={({ field }) => (
              <FilterCodeEditor
                value={field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
                editorRef={field.ref}
                readOnly={readOnly}
                catalogue={catalogue}
                placeholder={FILTER_PLACEHOLDER}
                aria-label="Payload filter"
                {...controlProps}
              />
            )}
          />
        )}
      </Field>
    </div>
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
  automationId,
}: {
  index: number;
  factorySlug: string;
  control: FormControl;
  register: UseFormRegister<AutomationFormValues>;
  errors: FieldErrors<AutomationFormValues>;
  webhooks: WebhookOption[];
  readOnly: boolean;
  onRemove: () => void;
  readTrigger: (index: number) => { trigger: TriggerToTest; automationEnabled: boolean; runControlEdited: boolean };
  /** A saved automation's, for Test filter's run control preview. */
  automationId: string | undefined;
}) {
  const [trigger, enabled] = useWatch({ control, name: [`triggers.${index}`, 'enabled'] });
  const webhook = webhooks.find((w) => w.uid === trigger.webhookUid);
  const fieldErrors = errors.triggers?.[index];
  const live = webhooks.filter((w) => !firesNever(w.state));
  const name = webhook ? (webhook.name ?? webhook.uid) : trigger.webhookUid;
  const readableUid = webhook && !firesNever(webhook.state) ? webhook.uid : null;
  const catalogue = useFieldCatalogue(factorySlug, readableUid);

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
                : 'Deliveries to this webhook that match the event types and filters below start a run.'
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
      <EventTypesField index={index} control={control} catalogue={catalogue} serverError={fieldErrors?.events?.message} readOnly={readOnly} />
      <HeaderFilterField index={index} control={control} serverError={fieldErrors?.headers?.message} readOnly={readOnly} />
      <div className="flex flex-col gap-2">
        <FilterEditor index={index} control={control} catalogue={catalogue} serverError={fieldErrors?.payload?.message} readOnly={readOnly} />
        <LiveCount factorySlug={factorySlug} uid={readableUid} values={trigger} />
      </div>
      <TestFilter
        factorySlug={factorySlug}
        automationId={automationId}
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
  prefill,
}: {
  factorySlug: string;
  /** Absent for a new automation. */
  automationId?: string;
  initialValues: AutomationFormValues;
  /** The factory's webhooks, plus deleted ones still named by a saved trigger. */
  webhooks: WebhookOption[];
  readOnly?: boolean;
  /** Filter on this: a trigger's filter with the picked condition merged in, set as an unsaved edit. */
  prefill?: { index: number; field: 'payload' | 'headers' | 'events'; text: string };
}) {
  const router = useRouter();
  const automationsPath = `/f/${factorySlug}/automations`;
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { register, control, handleSubmit, formState, setError, getValues, getFieldState, setValue, trigger: validate, reset } = useForm<
    AutomationFormValues,
    unknown,
    CreateAutomationInput
  >({ resolver: zodResolver(automationFormSchema), defaultValues: initialValues });
  const { fields, append, remove } = useFieldArray({ control, name: 'triggers' });

  useEffect(() => {
    if (!prefill || readOnly) return;
    setValue(`triggers.${prefill.index}.${prefill.field}`, prefill.text, { shouldDirty: true, shouldValidate: true });
    document.querySelector(`[aria-label="Trigger ${prefill.index + 1}"]`)?.scrollIntoView({ block: 'center' });
  }, [prefill, readOnly, setValue]);

  const [leaving, setLeaving] = useState(false);
  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    setSaved(false);
    const result = automationId
      ? await reach(updateAutomationAction)(factorySlug, { id: automationId, ...values })
      : await reach(createAutomationAction)(factorySlug, values);
    if (!result.ok) {
      const serverFields = Object.fromEntries(Object.entries(result.error.fields ?? {}).map(([key, message]) => [formField(key), message]));
      const names = [
        'name',
        'prompt',
        'enabled',
        ...fields.flatMap((_, i) => ['webhookUid', 'events', 'headers', 'payload'].map((part) => `triggers.${i}.${part}`)),
        ...RUN_CONTROL_FIELDS.map((field) => `runControl.${field}`),
      ];
      setFormError(applyFieldErrors({ ...result.error, fields: serverFields }, setError, names));
      return;
    }
    if (result.data) {
      // Created: the button stays busy while the new automation's page loads, so a second click cannot create it twice.
      setLeaving(true);
      router.push(`${automationsPath}/${result.data.id}`);
      return;
    }
    reset(getValues());
    setSaved(true);
    // Saved: the picked condition is in the filter now, so the URL stops carrying it.
    if (prefill) router.replace(`${automationsPath}/${automationId}`);
    else router.refresh();
  });

  /** One trigger as written now, for Test filter; problems go next to its fields too. */
  const readTrigger = (index: number): { trigger: TriggerToTest; automationEnabled: boolean; runControlEdited: boolean } => {
    const parsed = triggerFormSchema.safeParse(getValues(`triggers.${index}`));
    const automationEnabled = getValues('enabled');
    // Test filter previews the saved run control: it says so when the section has unsaved edits.
    const runControlEdited = getFieldState('runControl', formState).isDirty;
    if (parsed.success) return { trigger: { ok: true, trigger: parsed.data }, automationEnabled, runControlEdited };
    if (!readOnly) void validate([`triggers.${index}.webhookUid`, `triggers.${index}.events`, `triggers.${index}.headers`, `triggers.${index}.payload`]);
    return { trigger: { ok: false, message: `Fix this trigger to test it: ${parsed.error.issues[0]?.message ?? 'it is not valid'}.` }, automationEnabled, runControlEdited };
  };

  return (
    <ClientForm onSubmit={onSubmit} aria-label={automationId ? 'Automation' : 'New automation'} className="flex flex-col gap-6">
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
          <ControlledSwitch
            control={control}
            name="enabled"
            label="Enabled"
            description="A disabled automation starts no runs; its triggers and past runs are kept."
            disabled={readOnly}
          />
        </CardBody>
      </Card>

      <Card>
        <CardHeader
          title="Triggers"
          description="A delivery to a trigger’s webhook that matches its event types, header filter and payload filter starts a run. For several webhooks, add one trigger each."
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
                  automationId={automationId}
                />
              ))}
            </ol>
          )}
        </CardBody>
      </Card>

      <RunControlFields
        control={control}
        register={register}
        errors={formState.errors}
        readOnly={readOnly}
        footer={
          readOnly ? null : (
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
                <Button type="submit" loading={formState.isSubmitting || leaving}>
                  {automationId ? 'Save changes' : 'Create automation'}
                </Button>
              </div>
            </CardFooter>
          )
        }
      />
    </ClientForm>
  );
}
