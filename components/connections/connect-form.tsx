'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useForm, useWatch, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { ClientForm } from '@/components/forms/client-form';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { ChoiceCardRadio } from '@/components/ui/choice-card-radio';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { textLinkStyle } from '@/components/ui/text-link';
import { zodResolver } from '@/components/ui/zod-resolver';
import { connectWebhookAction } from '@/lib/domain/connections/actions';
import { reach } from '@/components/forms/reach';
import {
  connectWebhookFormSchema,
  DEFAULT_API_BASE_URL,
  PROVIDER_TARGET,
  type CONNECTION_PROVIDERS,
  type ConnectWebhookFormInput,
} from '@/lib/domain/connections/schemas';

type Provider = (typeof CONNECTION_PROVIDERS)[number];
type Output = z.output<typeof connectWebhookFormSchema>;
const resolver = zodResolver(connectWebhookFormSchema) as unknown as Resolver<ConnectWebhookFormInput, unknown, Output>;
const fieldNames = ['provider', 'apiBaseUrl', 'credentialSecretName', 'target', 'eventTypes'] as const;

const kindDescriptions: Record<Provider, string> = {
  github_repository: 'A hook on one repository. The token needs admin:repo_hook (fine-grained: Webhooks, read and write).',
  github_organization: 'A hook on every repository of an organization. The token needs admin:org_hook (fine-grained: organization Webhooks).',
  gitlab_project: 'A hook on one project. The token needs the api scope, of a user with the Maintainer role on the project.',
  stripe_account: 'An endpoint of a Stripe account. The key needs write access to webhook endpoints.',
};

/**
 * Connects a webhook to its sender's API, or changes the connection (the same
 * form, prefilled). The credential is a team secret chosen by name: the
 * token itself never passes through this form.
 */
export function ConnectForm({
  factorySlug,
  uid,
  providerName,
  providers,
  secretNames,
  secretsHref,
  initial,
  submitLabel,
  onCancel,
  onConnected,
}: {
  factorySlug: string;
  uid: string;
  /** "GitHub" */
  providerName: string;
  /** The connection kinds of the webhook's scheme; unavailable ones are shown disabled. */
  providers: { value: Provider; available: boolean }[];
  /** The factory's team secrets, by name. */
  secretNames: string[];
  secretsHref: string;
  initial?: { provider: Provider; apiBaseUrl: string; credentialSecretName: string; target: string; eventTypes: string[] };
  submitLabel: string;
  onCancel?: () => void;
  onConnected?: () => void;
}) {
  const ids = useId();
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const firstAvailable = providers.find((p) => p.available)?.value ?? providers[0]!.value;
  const { register, handleSubmit, formState, setError, control } = useForm<ConnectWebhookFormInput, unknown, Output>({
    resolver,
    defaultValues: {
      provider: initial?.provider ?? firstAvailable,
      // The default base URL is shown as the placeholder, so the field stays empty for it.
      apiBaseUrl: initial && initial.apiBaseUrl !== DEFAULT_API_BASE_URL[initial.provider] ? initial.apiBaseUrl : '',
      credentialSecretName: initial?.credentialSecretName ?? '',
      target: initial?.target ?? '',
      eventTypes: initial?.eventTypes.join(', ') ?? '',
    },
  });
  const provider = (useWatch({ control, name: 'provider' }) ?? firstAvailable) as Provider;
  const target = PROVIDER_TARGET[provider];
  // A connection whose team secret was deleted since still shows its name, so the choice is not silently changed.
  const names = initial && !secretNames.includes(initial.credentialSecretName) ? [initial.credentialSecretName, ...secretNames] : secretNames;

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(connectWebhookAction)(factorySlug, { uid, ...values, apiBaseUrl: values.apiBaseUrl || undefined });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, fieldNames));
      return;
    }
    onConnected?.();
    router.refresh();
  });

  const secretsLink = (
    // Underlined: inside a sentence, a link must not be told apart by its colour alone.
    <Link href={secretsHref} className={`${textLinkStyle} underline underline-offset-2`}>
      Secrets page
    </Link>
  );

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-5" aria-label={`Connect to ${providerName}`}>
      <FormError message={formError} />
      <fieldset className="flex flex-col gap-3" aria-describedby={formState.errors.provider ? `${ids}-provider-error` : undefined}>
        <legend className="mb-1.5 text-sm font-medium text-fg">Kind</legend>
        <div className="grid gap-3 md:grid-cols-2">
          {providers.map((option) => (
            <ChoiceCardRadio
              key={option.value}
              value={option.value}
              label={PROVIDER_TARGET[option.value].kind}
              note={option.available ? undefined : 'Not available yet'}
              description={kindDescriptions[option.value]}
              disabled={!option.available}
              {...register('provider')}
            />
          ))}
        </div>
        {formState.errors.provider ? (
          <p id={`${ids}-provider-error`} role="alert" className="text-[13px] text-red-700">
            {formState.errors.provider.message}
          </p>
        ) : null}
      </fieldset>

      <div className="grid gap-5 md:grid-cols-2">
        <Field label={target.label} required error={formState.errors.target?.message}>
          <Input mono autoComplete="off" spellCheck={false} placeholder={target.placeholder} {...register('target')} />
        </Field>
        <Field
          label="API credential"
          required
          error={formState.errors.credentialSecretName?.message}
          hint={
            names.length === 0 ? (
              <>No team secret yet: create one holding the API token on the {secretsLink}, then come back.</>
            ) : (
              <>The team secret that holds the API token. Create one on the {secretsLink}.</>
            )
          }
        >
          <Select placeholder="Choose a team secret" {...register('credentialSecretName')}>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label="Event types"
          optional
          error={formState.errors.eventTypes?.message}
          hint={`Comma-separated, such as ${target.events}. Empty: every event ${providerName} sends.`}
        >
          <Input mono autoComplete="off" spellCheck={false} placeholder={target.events.split(', ').slice(0, 2).join(', ')} {...register('eventTypes')} />
        </Field>
        <Field
          label="API base URL"
          optional
          error={formState.errors.apiBaseUrl?.message}
          hint={target.selfHosted ? `Only for a self-hosted ${providerName} (${target.selfHosted}).` : `Leave it empty for ${providerName}.`}
        >
          <Input type="url" mono autoComplete="off" spellCheck={false} placeholder={DEFAULT_API_BASE_URL[provider]} {...register('apiBaseUrl')} />
        </Field>
      </div>

      <p className="max-w-3xl text-[13px] text-fg-muted">
        {initial
          ? `Saving updates ${providerName}’s hook and sets a new signing secret on both sides at once.`
          : `Tripline creates the hook on ${providerName} (or adopts one that already sends here) and sets a new signing secret on both sides: nothing to copy by hand.`}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" loading={formState.isSubmitting}>
          {submitLabel}
        </Button>
        {onCancel ? (
          <Button type="button" variant="secondary" onClick={onCancel} disabled={formState.isSubmitting}>
            Cancel
          </Button>
        ) : null}
      </div>
    </ClientForm>
  );
}
