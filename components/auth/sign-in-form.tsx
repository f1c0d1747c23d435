'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import Link from 'next/link';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { signInErrorMessage } from '@/lib/domain/auth/sign-in-messages';
import { signInSchema, type SignInInput } from '@/lib/domain/users/schemas';
import { ClientForm } from '@/components/forms/client-form';

export function SignInForm({ callbackUrl, allowSignUp }: { callbackUrl: string; allowSignUp: boolean }) {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm<SignInInput>({
    resolver: zodResolver(signInSchema),
    defaultValues: { email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await signIn('credentials', { email: values.email, password: values.password, redirect: false });
    if (!result || result.error) {
      setFormError(signInErrorMessage(result?.error ?? ''));
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  });

  return (
    <Card>
      <CardHeader title="Sign in" description="Welcome back to Tripline." />
      <ClientForm onSubmit={onSubmit}>
        <CardBody className="flex flex-col gap-4">
          <FormError message={formError} />
          <Field label="Email" error={formState.errors.email?.message}>
            <Input type="email" autoComplete="email" autoFocus {...register('email')} />
          </Field>
          <Field label="Password" error={formState.errors.password?.message}>
            <Input type="password" autoComplete="current-password" {...register('password')} />
          </Field>
        </CardBody>
        <CardFooter align="between">
          {allowSignUp ? (
            <Link href="/signup" className="text-[13px] text-fg-muted hover:text-fg">
              No account yet? Sign up
            </Link>
          ) : (
            <span className="text-[13px] text-fg-subtle">New here? Ask an admin for an invitation link.</span>
          )}
          <Button type="submit" loading={formState.isSubmitting}>
            Sign in
          </Button>
        </CardFooter>
      </ClientForm>
    </Card>
  );
}
