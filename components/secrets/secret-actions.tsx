'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { ConfirmDialog, Dialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { deleteSecretAction, replaceSecretAction } from '@/lib/domain/secrets/actions';
import { putSecretSchema } from '@/lib/domain/secrets/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

type ReplaceValues = z.input<typeof putSecretSchema>;

function ReplaceValueDialog({ factorySlug, name, used }: { factorySlug: string; name: string; used: boolean }) {
  const router = useRouter();
  const formId = useId();
  const [open, setOpen] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<ReplaceValues>({
    resolver: zodResolver(putSecretSchema),
    defaultValues: { value: '' },
  });

  const close = () => {
    setOpen(false);
    setFormError(null);
    reset({ value: '' });
  };

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(replaceSecretAction)(factorySlug, { name, value: values.value });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['value']));
      return;
    }
    close();
    router.refresh();
  });

  return (
    <>
      <Button type="button" variant="secondary" size="sm" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Replace value
      </Button>
      <Dialog
        open={open}
        onOpenChange={(next) => (next ? setOpen(true) : close())}
        title={`Replace the value of ${name}`}
        description={
          used
            ? 'Webhooks that use it keep checking the old value until they next apply (turn Enabled off and on); until then they show “Secret change pending”.'
            : 'No webhook uses it yet.'
        }
        footer={
          <>
            <Button type="button" variant="secondary" onClick={close} disabled={formState.isSubmitting}>
              Cancel
            </Button>
            <Button type="submit" form={formId} loading={formState.isSubmitting}>
              Replace value
            </Button>
          </>
        }
      >
        <ClientForm id={formId} onSubmit={onSubmit} className="flex flex-col gap-4">
          <FormError message={formError} />
          <Field label="New value" error={formState.errors.value?.message}>
            <Input type="password" mono autoComplete="new-password" spellCheck={false} data-autofocus {...register('value')} />
          </Field>
        </ClientForm>
      </Dialog>
    </>
  );
}

/** Replace and Delete for one secret row (the page is admins only). */
export function SecretActions({ factorySlug, name, used }: { factorySlug: string; name: string; used: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  const remove = async () => {
    setError(null);
    const result = await reach(deleteSecretAction)(factorySlug, { name });
    if (!result.ok) setError(result.error.message);
    router.refresh();
  };

  return (
    <div className="flex flex-col items-end gap-1.5">
      <div className="flex items-center justify-end gap-2">
        <ReplaceValueDialog factorySlug={factorySlug} name={name} used={used} />
        <ConfirmDialog
          trigger="Delete"
          triggerVariant="secondary"
          triggerSize="sm"
          title={`Delete ${name}?`}
          description="The value is destroyed and cannot be recovered."
          confirmLabel="Delete secret"
          onConfirm={remove}
        />
      </div>
      {error ? (
        <p role="alert" className="max-w-96 text-right text-[13px] text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
