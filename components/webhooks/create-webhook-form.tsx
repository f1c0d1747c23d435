'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useForm, useWatch, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { EventTypeField, type EventTypeFieldValues } from '@/components/webhooks/event-type-field';
import { SchemeSetup } from '@/components/webhooks/scheme-setup';
import { WebhookIcon } from '@/components/webhooks/webhook-icon';
import { CreatedPanel, type Created } from '@/components/webhooks/created-webhook-panel';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter } from '@/components/ui/card';
import { ChoiceCardRadio } from '@/components/ui/choice-card-radio';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { getScheme, schemeIds, schemes, type SchemeInfo } from '@/lib/ingress/signatures/registry';
import { createWebhookAction } from '@/lib/domain/webhooks/actions';
import { authModeLabels, authModes, createWebhookSchema, suggestFreeSecretName, type AuthMode } from '@/lib/domain/webhooks/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

// 29 providers: alphabetical by name, so a person finds theirs at a glance.
const schemeOptions = [...schemeIds].sort((a, b) => schemes[a].displayName.localeCompare(schemes[b].displayName, 'en'));

type FormValues = EventTypeFieldValues & {
  name: string;
  authMode: AuthMode;
  signatureScheme: string;
  providerSecret: string;
  secretName: string;
  deliveryIdHeader: string;
};

type CreateWebhookValues = z.output<typeof createWebhookSchema>;

const fieldNames = ['name', 'authMode', 'signatureScheme', 'providerSecret', 'secretName', 'deliveryIdHeader', 'eventTypeHeader', 'eventTypePath'] as const;

const defaultValues: FormValues = {
  name: '',
  authMode: 'token',
  signatureScheme: '',
  providerSecret: '',
  secretName: '',
  deliveryIdHeader: '',
  eventTypeFrom: 'header',
  eventTypeHeader: '',
  eventTypePath: '',
};

const authModeDescriptions: Record<AuthMode, string> = {
  token: 'The sender puts a secret Tripline generates in an Authorization header.',
  url_token: 'The secret is part of the URL, for senders that cannot set headers.',
  signature: 'The provider signs each request: GitHub, Stripe, Standard Webhooks…',
};

// The schema preprocesses blanks, so zod types its input as unknown; the form holds plain strings.
const schemaResolver = zodResolver(createWebhookSchema) as unknown as Resolver<FormValues, unknown, CreateWebhookValues>;

// The provider fields keep what was typed while another mode is chosen (so
// switching back restores it), but only a signature webhook submits them; the
// Event type submits only the field its selector shows, and never for a
// signature webhook (its scheme names the type).
const resolver: Resolver<FormValues, unknown, CreateWebhookValues> = (values, context, options) => {
  const signature = values.authMode === 'signature';
  return schemaResolver(
    {
      ...values,
      ...(signature ? {} : { signatureScheme: '', providerSecret: '' }),
      eventTypeHeader: !signature && values.eventTypeFrom === 'header' ? values.eventTypeHeader : '',
      eventTypePath: !signature && values.eventTypeFrom === 'path' ? values.eventTypePath : '',
    },
    context,
    options,
  );
};

/** The team secret name the server would choose for this webhook name (blank while the name is). */
function suggestedSecretName(webhookName: string, taken: ReadonlySet<string>): string {
  return webhookName.trim() ? suggestFreeSecretName(webhookName.trim(), taken) : '';
}

/** The hint under Provider secret: whether and when the secret can be left blank. */
function providerSecretHint(scheme: SchemeInfo | undefined): string {
  if (!scheme) return 'Leave blank if Tripline should generate it, or if the provider issues it only after you give it the URL.';
  if (scheme.secretSource === 'generated') return 'Leave blank and Tripline generates one to give the sender.';
  if (scheme.secretSource === 'handshake') return `Leave blank: ${scheme.displayName} sends it in its first request, and Tripline keeps it.`;
  return `Leave blank if ${scheme.displayName} issues it only after you give it the URL: you will enter it in a second step.`;
}

export function CreateWebhookForm({
  factorySlug,
  secretNames,
  atLimit,
  limit,
}: {
  factorySlug: string;
  /** Names of the factory's team secrets, offered for Secret name. */
  secretNames: string[];
  atLimit: boolean;
  limit: number;
}) {
  const router = useRouter();
  const ids = useId();
  const webhooksPath = `/f/${factorySlug}/automations/webhooks`;
  const [formError, setFormError] = useState<string | null>(null);
  const [secretNameEdited, setSecretNameEdited] = useState(false);
  // The secret lives only here, in memory, until the panel is left.
  const [created, setCreated] = useState<Created | null>(null);
  const { register, handleSubmit, formState, setError, setValue, control, reset } = useForm<FormValues, unknown, CreateWebhookValues>({
    resolver,
    defaultValues,
  });
  const taken = new Set(secretNames);
  const [authMode, schemeId, secretName, eventTypeFrom] = useWatch({ control, name: ['authMode', 'signatureScheme', 'secretName', 'eventTypeFrom'] });
  const scheme = authMode === 'signature' ? getScheme(schemeId) : undefined;
  const namesExisting = secretName.trim() !== '' && taken.has(secretName.trim());

  const name = register('name');
  const secretNameField = register('secretName');

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(createWebhookAction)(factorySlug, values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, fieldNames));
      return;
    }
    setCreated({
      uid: result.data.uid,
      name: values.name,
      authMode: values.authMode,
      scheme: values.authMode === 'signature' ? (values.signatureScheme ?? null) : null,
      secretName: values.secretName ?? null,
      secret: result.data.secret,
      ingressUrl: result.data.ingressUrl,
      providerSecretGiven: Boolean(values.providerSecret),
      existingSecret: values.secretName !== undefined && taken.has(values.secretName),
    });
    router.refresh();
  });

  if (created) {
    return (
      <CreatedPanel
        created={created}
        factorySlug={factorySlug}
        webhooksPath={webhooksPath}
        onCreateAnother={() => {
          setCreated(null);
          setSecretNameEdited(false);
          setFormError(null);
          reset(defaultValues);
        }}
      />
    );
  }

  if (atLimit) {
    return (
      <EmptyState
        bordered
        className="max-w-3xl"
        icon={<WebhookIcon />}
        title={`This factory has ${limit} webhooks, the most it can have`}
        description="Delete a webhook you no longer use to create another."
        action={
          <ButtonLink href={webhooksPath} variant="secondary">
            Back to webhooks
          </ButtonLink>
        }
      />
    );
  }

  return (
    <Card className="max-w-3xl">
      <ClientForm onSubmit={onSubmit} aria-label="New webhook">
        <CardBody className="flex flex-col gap-6">
          <FormError message={formError} />
          <Field
            label="Name"
            required
            error={formState.errors.name?.message}
            hint="Lowercase letters, digits, and hyphens or underscores, for example github-deploys. Automations show it."
          >
            <Input
              autoFocus
              autoComplete="off"
              spellCheck={false}
              placeholder="github-deploys"
              {...name}
              onChange={(event) => {
                void name.onChange(event);
                if (!secretNameEdited) setValue('secretName', suggestedSecretName(event.target.value, taken));
              }}
            />
          </Field>

          <fieldset className="flex flex-col gap-3" aria-describedby={formState.errors.authMode ? `${ids}-auth-error` : undefined}>
            <legend className="mb-1.5 text-sm font-medium text-fg">Authentication</legend>
            <div className="grid gap-3 md:grid-cols-3">
              {authModes.map((mode) => (
                <ChoiceCardRadio
                  key={mode}
                  value={mode}
                  label={authModeLabels[mode]}
                  note={mode === 'token' ? 'Default' : undefined}
                  description={authModeDescriptions[mode]}
                  {...register('authMode')}
                />
              ))}
            </div>
            {formState.errors.authMode ? (
              <p id={`${ids}-auth-error`} role="alert" className="text-[13px] text-red-700">
                {formState.errors.authMode.message}
              </p>
            ) : null}
          </fieldset>

          {authMode === 'signature' ? (
            <div className="flex flex-col gap-5 rounded-lg border border-line bg-subtle/50 p-4">
              <Field label="Provider scheme" required error={formState.errors.signatureScheme?.message}>
                <Select placeholder="Choose the provider that signs the requests" {...register('signatureScheme')}>
                  {schemeOptions.map((id) => (
                    <option key={id} value={id}>
                      {schemes[id].displayName}
                    </option>
                  ))}
                </Select>
              </Field>
              {scheme ? (
                <div className="rounded-lg border border-line bg-surface p-4">
                  <p className="mb-3 text-[13px] font-semibold text-fg">Set up {scheme.displayName}</p>
                  <SchemeSetup scheme={scheme} />
                </div>
              ) : null}
              <Field
                label="Provider secret"
                optional
                error={formState.errors.providerSecret?.message}
                hint={providerSecretHint(scheme)}
              >
                <Input type="password" autoComplete="off" spellCheck={false} mono {...register('providerSecret')} />
              </Field>
            </div>
          ) : null}

          <Field
            label="Secret name"
            error={formState.errors.secretName?.message}
            hint={
              <>
                The team secret that stores the credential. Name an existing team secret to use its value instead.
                {namesExisting ? (
                  <span className="mt-1 block font-medium text-accent-700">
                    {secretName.trim()} exists: its current value becomes this webhook’s credential, so nothing new is generated.
                  </span>
                ) : null}
              </>
            }
          >
            <Input
              mono
              autoComplete="off"
              spellCheck={false}
              list={secretNames.length > 0 ? `${ids}-secret-names` : undefined}
              placeholder="GITHUB_DEPLOYS_WEBHOOK_SECRET"
              {...secretNameField}
              onChange={(event) => {
                setSecretNameEdited(event.target.value !== '');
                void secretNameField.onChange(event);
              }}
            />
          </Field>
          {secretNames.length > 0 ? (
            <datalist id={`${ids}-secret-names`}>
              {secretNames.map((secret) => (
                <option key={secret} value={secret} />
              ))}
            </datalist>
          ) : null}

          <Field
            label="Delivery ID header"
            optional
            error={formState.errors.deliveryIdHeader?.message}
            hint="A request header in which the sender puts its own event ID, used to spot duplicates."
          >
            <Input mono autoComplete="off" spellCheck={false} placeholder="X-Request-Id" {...register('deliveryIdHeader')} />
          </Field>

          {authMode !== 'signature' ? (
            <EventTypeField
              register={register}
              from={eventTypeFrom}
              error={formState.errors[eventTypeFrom === 'path' ? 'eventTypePath' : 'eventTypeHeader']?.message}
            />
          ) : null}
        </CardBody>
        <CardFooter>
          <ButtonLink href={webhooksPath} variant="secondary">
            Cancel
          </ButtonLink>
          <Button type="submit" loading={formState.isSubmitting}>
            Create webhook
          </Button>
        </CardFooter>
      </ClientForm>
    </Card>
  );
}
