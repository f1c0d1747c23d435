'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { ClientForm } from '@/components/forms/client-form';
import { FormError } from '@/components/forms/form-error';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/textarea';
import { setIpAllowlistAction } from '@/lib/domain/webhooks/actions';
import { ipAllowlistFormSchema, type IpAllowlistFormInput } from '@/lib/domain/webhooks/schemas';
import { reach } from '@/components/forms/reach';

type Output = z.output<typeof ipAllowlistFormSchema>;
const resolver = zodResolver(ipAllowlistFormSchema) as unknown as Resolver<IpAllowlistFormInput, unknown, Output>;

/**
 * The webhook's IP allowlist, one range per line. A list that would refuse the
 * address the admin is using now asks before it is saved.
 */
export function IpAllowlistForm({ factorySlug, uid, ranges, address }: { factorySlug: string; uid: string; ranges: string[]; address: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // The list the server declined to save without asking, and the address it would refuse.
  const [pending, setPending] = useState<{ ranges: string[]; address: string } | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<IpAllowlistFormInput, unknown, Output>({
    resolver,
    defaultValues: { ipAllowlist: ranges.join('\n') },
  });

  const save = async (list: string[], confirmOutsideAddress: boolean) => {
    setFormError(null);
    setSaved(null);
    const result = await reach(setIpAllowlistAction)(factorySlug, { uid, ipAllowlist: list.join('\n'), confirmOutsideAddress });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['ipAllowlist']));
      return;
    }
    if (result.data.outsideAddress) {
      setPending({ ranges: list, address: result.data.outsideAddress });
      return;
    }
    setPending(null);
    setSaved(list.length > 0 ? `Saved. Requests from outside ${list.length === 1 ? 'this range' : `these ${list.length} ranges`} now get 404.` : 'Saved. Every address is admitted.');
    router.refresh();
  };

  const onSubmit = handleSubmit((values) => save(values.ipAllowlist, false));

  return (
    <ClientForm onSubmit={onSubmit} className="flex flex-col gap-3" aria-label="IP allowlist">
      <FormError message={formError} />
      {saved ? <Alert tone="success">{saved}</Alert> : null}
      {pending ? (
        <Alert tone="warning" title={`This list refuses your own address, ${pending.address}`}>
          <p>
            Requests from {pending.address} would get 404. That is fine when your senders post from elsewhere, but a test request you send from
            this machine would be refused too.
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Button type="button" size="sm" variant="danger" onClick={() => save(pending.ranges, true)}>
              Save anyway
            </Button>
            <Button type="button" size="sm" variant="secondary" onClick={() => setPending(null)}>
              Keep editing
            </Button>
          </div>
        </Alert>
      ) : null}
      <div className="flex flex-col gap-3 lg:flex-row lg:items-start">
        <Field
          className="min-w-0 flex-1"
          label="IP allowlist"
          optional
          error={formState.errors.ipAllowlist?.message}
          hint={`One IPv4 or IPv6 range per line (192.0.2.0/24, 2001:db8::/32, or one address), at most 100. Empty admits every address. Requests from elsewhere get 404, as for an unknown webhook. Your address as Tripline sees it: ${address}.`}
        >
          <Textarea mono rows={4} spellCheck={false} autoComplete="off" placeholder={'192.0.2.0/24\n2001:db8::/32'} {...register('ipAllowlist')} />
        </Field>
        <Button type="submit" className="self-start lg:mt-[1.625rem]" loading={formState.isSubmitting}>
          Save allowlist
        </Button>
      </div>
    </ClientForm>
  );
}
