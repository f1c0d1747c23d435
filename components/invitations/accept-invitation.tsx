'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { signIn, signOut } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { CardBody, CardFooter } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { acceptInvitationAction, acceptWithNewAccountAction } from '@/lib/domain/invitations/actions';
import { newAccountFormSchema, type NewAccountFormInput } from '@/lib/domain/invitations/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

/** Creates the account for the invited email and joins the factory, then signs in. */
export function NewAccountFromInvitation({ token, email, signInHref }: { token: string; email: string; signInHref: string }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<NewAccountFormInput>({
    resolver: zodResolver(newAccountFormSchema),
    defaultValues: { name: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(acceptWithNewAccountAction)({ ...values, token });
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name', 'password']));
      return;
    }
    const signedIn = await signIn('credentials', { email: result.data.email, password: values.password, redirect: false });
    router.replace(signedIn?.ok ? `/f/${result.data.factorySlug}/automations` : '/signin');
    router.refresh();
  });

  return (
    <ClientForm onSubmit={onSubmit} aria-label="Create your account">
      <CardBody className="flex flex-col gap-4">
        <FormError message={formError} />
        <Field label="Email" hint="The invitation is for this address.">
          <Input type="email" value={email} readOnly aria-readonly="true" className="bg-subtle/60 text-fg-muted" />
        </Field>
        <Field label="Name" optional error={formState.errors.name?.message}>
          <Input autoComplete="name" autoFocus {...register('name')} />
        </Field>
        <Field label="Password" required hint="At least 10 characters." error={formState.errors.password?.message}>
          <Input type="password" autoComplete="new-password" {...register('password')} />
        </Field>
      </CardBody>
      <CardFooter align="between">
        <a href={signInHref} className="text-[13px] text-fg-muted hover:text-fg">
          Have an account? Sign in to accept
        </a>
        <Button type="submit" loading={formState.isSubmitting}>
          Create account and join
        </Button>
      </CardFooter>
    </ClientForm>
  );
}

/** The signed-in account accepts; or signs out to use another one. */
export function AcceptAsSignedIn({ token, accountEmail, factoryName }: { token: string; accountEmail: string; factoryName: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const accept = async () => {
    setError(null);
    setPending(true);
    const result = await reach(acceptInvitationAction)({ token });
    if (!result.ok) {
      setError(result.error.message);
      setPending(false);
      return;
    }
    router.replace(`/f/${result.data.factorySlug}/automations`);
    router.refresh();
  };

  return (
    <>
      {error ? (
        <CardBody className="pt-0">
          <FormError message={error} />
        </CardBody>
      ) : null}
      <CardFooter align="between">
        <button
          type="button"
          className="text-[13px] text-fg-muted hover:text-fg"
          onClick={async () => {
            await signOut({ redirect: false });
            router.refresh();
          }}
        >
          Use another account
        </button>
        <Button type="button" loading={pending} onClick={accept}>
          Join {factoryName} as {accountEmail}
        </Button>
      </CardFooter>
    </>
  );
}
