'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyField } from '@/components/ui/copy-button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { DataTable, TD, TR } from '@/components/ui/table';
import { createApiTokenAction, revokeApiTokenAction } from '@/lib/domain/api-tokens/actions';
import { createApiTokenSchema, type CreateApiTokenInput } from '@/lib/domain/api-tokens/schemas';
import { dateTimeFormat } from '@/components/format';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

export type TokenRow = { id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null };

export function CreateApiTokenForm() {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<CreateApiTokenInput>({
    resolver: zodResolver(createApiTokenSchema),
    defaultValues: { name: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(createApiTokenAction)(values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name']));
      return;
    }
    setCreated(result.data);
    reset();
    router.refresh();
  });

  return (
    <div className="flex flex-col gap-4">
      {created ? (
        <Alert tone="success" title={`Token “${created.name}” created`}>
          <p className="mb-2">Copy it now: you will not see this token again. Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
          <CopyField value={created.token} aria-label="New API token" />
        </Alert>
      ) : null}
      <ClientForm onSubmit={onSubmit} className="flex items-start gap-3" aria-label="Create an API token">
        <Field className="flex-1" label="Token name" error={formState.errors.name?.message} hint="What will use it, for example “Deploy pipeline”.">
          <Input {...register('name')} />
        </Field>
        <Button type="submit" className="mt-[1.625rem]" loading={formState.isSubmitting}>
          Create token
        </Button>
      </ClientForm>
      <FormError message={formError} />
    </div>
  );
}

export function ApiTokenTable({ tokens }: { tokens: TokenRow[] }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      {error ? <Alert tone="danger" className="m-4">{error}</Alert> : null}
      <DataTable
        columns={[
          { header: 'Name' },
          { header: 'Token' },
          { header: 'Created' },
          { header: 'Last used' },
          { header: 'Actions', className: 'text-right', hidden: true },
        ]}
        empty={{ title: 'No API tokens', description: 'Create one to use the management API or the CLI from scripts.' }}
      >
        {tokens.map((token) => (
          <TR key={token.id}>
            <TD className="font-medium text-fg">{token.name}</TD>
            <TD label="Token" className="font-mono text-[13px] text-fg-muted">{token.prefix}…</TD>
            <TD label="Created" className="text-fg-muted">{dateTimeFormat.format(new Date(token.createdAt))}</TD>
            <TD label="Last used" className="text-fg-muted">{token.lastUsedAt ? dateTimeFormat.format(new Date(token.lastUsedAt)) : 'Never'}</TD>
            <TD className="text-right">
              <ConfirmDialog
                trigger="Revoke"
                triggerVariant="secondary"
                triggerSize="sm"
                title={`Revoke “${token.name}”?`}
                description="Requests that use this token will get 401 immediately. This cannot be undone."
                confirmLabel="Revoke token"
                onConfirm={async () => {
                  setError(null);
                  const result = await reach(revokeApiTokenAction)({ id: token.id });
                  if (!result.ok) setError(result.error.message);
                  router.refresh();
                }}
              />
            </TD>
          </TR>
        ))}
      </DataTable>
    </>
  );
}
