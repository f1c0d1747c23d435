'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useState, type ComponentProps, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { ConfirmDialog } from '@/components/ui/dialog';
import { checkConnectionAction, disconnectWebhookAction } from '@/lib/domain/connections/actions';
import { ConnectForm } from './connect-form';
import { reach } from '@/components/forms/reach';

type FormProps = Omit<ComponentProps<typeof ConnectForm>, 'submitLabel' | 'onCancel' | 'onConnected'>;

/** How often the page is read again while a pass runs, to show its result when it ends. */
const CHECKING_REFRESH_MS = 1500;

/**
 * The Connection card for those who may manage the webhook: Connect (the
 * form behind a button), or, once connected, Check now, Edit (the same form,
 * prefilled) and Disconnect. `details` is the connection's state, rendered on
 * the server.
 */
export function ConnectionControls({
  title,
  description,
  form,
  connected,
  filesDecide = null,
  checking,
  hasProviderHook,
  details,
}: {
  title: ReactNode;
  description: ReactNode;
  form: FormProps;
  connected: boolean;
  /** Definition files declare the connection: only Check now here, and this sentence in place of Edit and Disconnect. */
  filesDecide?: string | null;
  /** A pass runs now, or is due at once: the page is read again until it ends. */
  checking: boolean;
  hasProviderHook: boolean;
  details?: ReactNode;
}) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [requesting, setRequesting] = useState(false);
  const [deleteHook, setDeleteHook] = useState(false);
  const name = form.providerName;

  useEffect(() => {
    if (!checking) return;
    const timer = setTimeout(() => router.refresh(), CHECKING_REFRESH_MS);
    return () => clearTimeout(timer);
  });

  const check = async () => {
    setError(null);
    setRequesting(true);
    const result = await reach(checkConnectionAction)(form.factorySlug, { uid: form.uid });
    setRequesting(false);
    if (!result.ok) setError(result.error.message);
    router.refresh();
  };

  const disconnect = async () => {
    setError(null);
    const result = await reach(disconnectWebhookAction)(form.factorySlug, { uid: form.uid, deleteProviderHook: deleteHook });
    if (!result.ok) setError(result.error.message);
    setDeleteHook(false);
    router.refresh();
  };

  if (!connected) {
    return (
      <Card role="region" aria-label="Connection">
        <CardHeader title={title} description={description} />
        <CardBody>
          {editing ? (
            <ConnectForm {...form} submitLabel={`Connect to ${name}`} onCancel={() => setEditing(false)} onConnected={() => setEditing(false)} />
          ) : (
            <Button type="button" onClick={() => setEditing(true)}>
              Connect to {name}…
            </Button>
          )}
        </CardBody>
      </Card>
    );
  }

  const actions = (
    <>
      <Button type="button" variant="secondary" size="sm" loading={requesting || checking} onClick={check}>
        {checking ? 'Checking…' : 'Check now'}
      </Button>
      {filesDecide ? null : (
        <>
          <Button type="button" variant="secondary" size="sm" aria-expanded={editing} onClick={() => setEditing((open) => !open)}>
            Edit
          </Button>
          <ConfirmDialog
            trigger="Disconnect"
            triggerVariant="secondary"
            triggerSize="sm"
            title={`Disconnect this webhook from ${name}?`}
            description={`Tripline stops checking ${name} for missed deliveries. The webhook, its secret and its log stay as they are.`}
            confirmLabel="Disconnect"
            onConfirm={disconnect}
            size="md"
          >
            {hasProviderHook ? (
              <Checkbox
                checked={deleteHook}
                onChange={(event) => setDeleteHook(event.target.checked)}
                label={`Also delete the hook on ${name}`}
                description={
                  deleteHook
                    ? `${name} stops sending deliveries to this webhook: nothing more arrives here from it.`
                    : `The hook stays on ${name} and keeps sending deliveries here; only the recovery of missed ones stops.`
                }
              />
            ) : null}
          </ConfirmDialog>
        </>
      )}
    </>
  );

  return (
    <Card role="region" aria-label="Connection">
      <CardHeader title={title} description={description} actions={actions} />
      {error ? (
        <div className="border-b border-line px-5 py-4">
          <Alert tone="danger">{error}</Alert>
        </div>
      ) : null}
      {filesDecide ? <p className="border-b border-line px-5 py-3 text-[13px] text-fg-muted">{filesDecide}</p> : null}
      {details}
      {editing && !filesDecide ? (
        <section aria-label="Edit connection" className="border-t border-line bg-subtle/50 px-5 py-5">
          <h3 className="mb-4 font-medium text-fg">Edit connection</h3>
          <ConnectForm {...form} submitLabel="Save connection" onCancel={() => setEditing(false)} onConnected={() => setEditing(false)} />
        </section>
      ) : null}
    </Card>
  );
}
