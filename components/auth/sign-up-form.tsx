'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import Link from 'next/link';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { signUpAction } from '@/lib/domain/users/actions';
import { signUpSchema, type SignUpInput } from '@/lib/domain/users/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

export function SignUpForm() {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError } = useForm<SignUpInput>({
    resolver: zodResolver(signUpSchema),
    defaultValues: { name: '', email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(signUpAction)(values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name', 'email', 'password']));
      return;
    }
    await signIn('credentials', { email: values.email, password: values.password, redirect: false });
    router.replace('/');
    router.refresh();
  });

  return (
    <Card>
      <CardHeader
        title="Create your account"
        description="After signing up, ask an admin to invite you to their factory."
      />
      <ClientForm onSubmit={onSubmit}>
        <CardBody className="flex flex-col gap-4">
          <FormError message={formError} />
          <Field label="Name" optional error={formState.errors.name?.message}>
            <Input autoComplete="name" autoFocus {...register('name')} />
          </Field>
          <Field label="Email" required error={formState.errors.email?.message}>
            <Input type="email" autoComplete="email" {...register('email')} />
          </Field>
          <Field label="Password" required hint="At least 10 characters." error={formState.errors.password?.message}>
            <Input type="password" autoComplete="new-password" {...register('password')} />
          </Field>
        </CardBody>
        <CardFooter align="between">
          <Link href="/signin" className="text-[13px] text-fg-muted hover:text-fg">
            Have an account? Sign in
          </Link>
          <Button type="submit" loading={formState.isSubmitting}>
            Create account
          </Button>
        </CardFooter>
      </ClientForm>
    </Card>
  );
}
