'use client';

import { useState } from 'react';
import { FirstDelivery } from '@/components/webhooks/first-delivery';
import { SchemeSetup } from '@/components/webhooks/scheme-setup';
import { Alert } from '@/components/ui/alert';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { CodeBlock } from '@/components/ui/code-block';
import { CopyField } from '@/components/ui/copy-button';
import { Field } from '@/components/ui/field';
import { CheckCircleIcon } from '@/components/ui/icons';
import { schemes, type SchemeId, type SchemeInfo } from '@/lib/ingress/signatures/registry';
import type { AuthMode } from '@/lib/domain/webhooks/schemas';
import { testRequestCurl } from '@/lib/domain/webhooks/test-request';

// What a new webhook shows once, right after it is created: its URL, the
// secret (held only in this component's memory), a test request and the
// provider's setup. The form is create-webhook-form.tsx.

export type Created = {
  uid: string;
  name: string;
  authMode: AuthMode;
  scheme: SchemeId | null;
  secretName: string | null;
  secret: string | null;
  ingressUrl: string;
  providerSecretGiven: boolean;
  existingSecret: boolean;
};

export function CreatedPanel({
  created,
  factorySlug,
  webhooksPath,
  onCreateAnother,
}: {
  created: Created;
  factorySlug: string;
  webhooksPath: string;
  onCreateAnother: () => void;
}) {
  const scheme: SchemeInfo | undefined = created.scheme ? schemes[created.scheme] : undefined;
  const [signedAt, setSignedAt] = useState(() => Math.floor(Date.now() / 1000));
  const curl = testRequestCurl({ ingressUrl: created.ingressUrl, authMode: created.authMode, scheme: created.scheme, secret: created.secret, now: signedAt });
  const hasSecret = created.secret !== null || created.providerSecretGiven || created.existingSecret;
  const awaitingSecret = scheme?.secretSource === 'provider' && !hasSecret;
  const awaitingHandshake = scheme?.secretSource === 'handshake' && !hasSecret;
  const webhookPath = `${webhooksPath}/${created.uid}`;
  const summary = createdSummary(created.name, scheme?.displayName ?? 'the provider', awaitingSecret, awaitingHandshake);
  const waitingFor = scheme
    ? `Once ${scheme.displayName} has the URL, its first request appears here as soon as it arrives.`
    : 'Send the test request above, or point your sender at the URL: the delivery appears here as soon as it arrives.';

  return (
    <Card className="max-w-3xl">
      <CardHeader
        title={
          <span className="flex items-center gap-2">
            <CheckCircleIcon className="size-5 text-emerald-600" />
            Webhook created
          </span>
        }
        description={summary}
      />
      <CardBody className="flex flex-col gap-5">
        {created.secret !== null ? (
          <Alert tone="warning" title="Copy the secret now: you will not see it again">
            Tripline stores it encrypted and never shows it back. If it is lost, rotate the secret on the webhook’s page.
          </Alert>
        ) : null}
        <Field label="Ingress URL" hint={ingressUrlHint(created)}>
          <CopyField value={created.ingressUrl} copyLabel="Copy URL" />
        </Field>
        <CredentialNote created={created} />
        {curl ? (
          <div className="flex flex-col gap-2">
            <CodeBlock title="Send a test delivery" language="bash" code={curl} />
            {created.authMode === 'signature' ? (
              <p className="text-[13px] text-fg-muted">
                Signed at {new Date(signedAt * 1000).toLocaleTimeString()} with the secret above; it is accepted for 5 minutes.{' '}
                <button type="button" className="font-medium text-accent-700 hover:underline hover:underline-offset-2" onClick={() => setSignedAt(Math.floor(Date.now() / 1000))}>
                  Sign again
                </button>
              </p>
            ) : null}
          </div>
        ) : null}
        {scheme ? (
          <div className="rounded-lg border border-line bg-subtle/50 p-4">
            <p className="mb-3 text-[13px] font-semibold text-fg">Set up {scheme.displayName}</p>
            <SchemeSetup scheme={scheme} />
          </div>
        ) : null}
        {awaitingSecret && scheme ? (
          <Alert tone="info" title={`Next: give ${scheme.displayName} the URL, then enter the secret it issues on the webhook’s page`}>
            Until then the webhook answers every request with 401.
          </Alert>
        ) : null}
        <FirstDelivery factorySlug={factorySlug} uid={created.uid} webhookPath={webhookPath} waitingFor={waitingFor} />
      </CardBody>
      <CardFooter align="between">
        <Button type="button" variant="ghost" onClick={onCreateAnother}>
          Create another webhook
        </Button>
        <div className="flex gap-2">
          <ButtonLink href={webhooksPath} variant="secondary">
            Back to webhooks
          </ButtonLink>
          <ButtonLink href={webhookPath}>Go to webhook</ButtonLink>
        </div>
      </CardFooter>
    </Card>
  );
}

function createdSummary(name: string, provider: string, awaitingSecret: boolean, awaitingHandshake: boolean): string {
  if (awaitingSecret) return `${name} is ready for ${provider}’s URL. It refuses requests until you enter the secret.`;
  if (awaitingHandshake) return `${name} is ready for ${provider}’s URL. It takes the secret from the provider’s first request.`;
  return `${name} accepts deliveries now. Automations can subscribe to it with a Webhook trigger.`;
}

function ingressUrlHint(created: Created): string | undefined {
  if (created.authMode !== 'url_token') return undefined;
  if (created.secret !== null) return 'The URL contains the secret: treat it like a password.';
  return `Replace {token} with the value of ${created.secretName ?? 'the team secret'}.`;
}

/** Where the new webhook's credential is: shown once, an existing team secret's value, or the provider secret entered. */
function CredentialNote({ created }: { created: Created }) {
  if (created.secret !== null) {
    return (
      <Field
        label="Secret"
        hint={
          created.secretName ? (
            <>
              Stored in the team secret <code className="font-mono text-[12px] text-fg">{created.secretName}</code>.
            </>
          ) : undefined
        }
      >
        <CopyField value={created.secret} copyLabel="Copy secret" />
      </Field>
    );
  }
  if (created.existingSecret) {
    return (
      <p className="text-fg-muted">
        The credential is the current value of the team secret <code className="font-mono text-[13px] text-fg">{created.secretName}</code>.
      </p>
    );
  }
  if (created.providerSecretGiven) {
    return (
      <p className="text-fg-muted">
        The provider secret you entered is stored
        {created.secretName ? (
          <>
            {' '}in the team secret <code className="font-mono text-[13px] text-fg">{created.secretName}</code>
          </>
        ) : null}
        .
      </p>
    );
  }
  return null;
}
