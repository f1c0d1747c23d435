'use client';

import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { CopyField } from '@/components/ui/copy-button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { rotateWebhookSecretAction } from '@/lib/domain/webhooks/actions';
import { reach } from '@/components/forms/reach';

const noOverlap =
  'The old secret stops working immediately, with no overlap. For a rollover without downtime, create a second webhook, move the sender to it, then delete this one.';

export function RotateSecret({
  factorySlug,
  uid,
  urlToken,
  sharedWith,
  connectedTo = null,
}: {
  factorySlug: string;
  uid: string;
  /** A url_token webhook's URL changes with its secret. */
  urlToken: boolean;
  /** Other webhooks that use the same team secret. */
  sharedWith: string[];
  /** The provider whose hook the webhook is connected to ("GitHub"): the rotation sets the new secret there too. */
  connectedTo?: string | null;
}) {
  const connected = connectedTo
    ? `${connectedTo}’s hook gets the new secret in the same step, so ${connectedTo}’s deliveries keep verifying; one signed in the moment between the two sides fails here and the next check asks for it again.`
    : null;
  const [error, setError] = useState<string | null>(null);
  // Only in memory: shown once, gone on reload.
  const [rotated, setRotated] = useState<{ secret: string; ingressUrl: string } | null>(null);

  const rotate = async () => {
    setError(null);
    setRotated(null);
    const result = await reach(rotateWebhookSecretAction)(factorySlug, { uid });
    if (result.ok) setRotated(result.data);
    else setError(result.error.message);
  };

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-start justify-between gap-x-6 gap-y-3">
        <div className="min-w-0 flex-1 basis-64">
          <h3 className="font-medium text-fg">Rotate secret</h3>
          <p className="mt-0.5 max-w-2xl text-fg-muted">
            Tripline generates a new secret and shows it once. {connected ?? noOverlap}
          </p>
        </div>
        <ConfirmDialog
          trigger="Rotate secret"
          triggerVariant="secondary"
          title="Rotate this webhook’s secret?"
          description={
            <>
              <p>{connected ?? noOverlap}</p>
              {urlToken ? <p className="mt-2">The secret is part of the URL, so the ingress URL changes too.</p> : null}
              {sharedWith.length > 0 ? (
                <p className="mt-2">
                  The team secret is also used by {sharedWith.join(', ')}: {sharedWith.length === 1 ? 'it takes' : 'they take'} the new value up when{' '}
                  {sharedWith.length === 1 ? 'it' : 'they'} next apply.
                </p>
              ) : null}
            </>
          }
          confirmLabel="Rotate secret"
          onConfirm={rotate}
        />
      </div>
      {error ? <Alert tone="danger">{error}</Alert> : null}
      {rotated ? (
        <Alert tone="success" title="Secret rotated. Copy the new secret now: you will not see it again">
          <div className="mt-3 flex flex-col gap-3">
            <Field label="New secret">
              <CopyField value={rotated.secret} copyLabel="Copy secret" className="bg-surface" />
            </Field>
            {urlToken ? (
              <Field label="New ingress URL">
                <CopyField value={rotated.ingressUrl} copyLabel="Copy URL" className="bg-surface" />
              </Field>
            ) : null}
          </div>
        </Alert>
      ) : null}
    </div>
  );
}
