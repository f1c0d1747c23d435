'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
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
import { slugify } from '@/lib/domain/factories/schemas';
import { completeFirstRunAction } from '@/lib/domain/users/actions';
import { firstRunSchema, type FirstRunInput } from '@/lib/domain/users/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

const fields = ['name', 'email', 'password', 'factoryName', 'factorySlug'] as const;

export function FirstRunForm() {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [slugEdited, setSlugEdited] = useState(false);
  const { register, handleSubmit, formState, setError, setValue } = useForm<FirstRunInput>({
    resolver: zodResolver(firstRunSchema),
    defaultValues: { name: '', email: '', password: '', factoryName: '', factorySlug: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(completeFirstRunAction)(values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, fields));
      return;
    }
    const signedIn = await signIn('credentials', { email: values.email, password: values.password, redirect: false });
    router.replace(signedIn?.ok ? `/f/${result.data.factorySlug}/automations` : '/signin');
    router.refresh();
  });

  const factoryName = register('factoryName');
  const factorySlug = register('factorySlug');

  return (
    <Card>
      <CardHeader
        title="Set up Tripline"
        description="Create the first account. It becomes the admin of your first factory, the workspace where webhooks and automations live."
      />
      <ClientForm onSubmit={onSubmit}>
        <CardBody className="flex flex-col gap-5">
          <FormError message={formError} />
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-3 text-[13px] font-medium tracking-wide text-fg-subtle uppercase">Your account</legend>
            <Field label="Name" optional error={formState.errors.name?.message}>
              <Input autoComplete="name" autoFocus {...register('name')} />
            </Field>
            <Field label="Email" required error={formState.errors.email?.message}>
              <Input type="email" autoComplete="email" {...register('email')} />
            </Field>
            <Field label="Password" required hint="At least 10 characters." error={formState.errors.password?.message}>
              <Input type="password" autoComplete="new-password" {...register('password')} />
            </Field>
          </fieldset>
          <div className="border-t border-line" />
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-3 text-[13px] font-medium tracking-wide text-fg-subtle uppercase">Your first factory</legend>
            <Field label="Factory name" required error={formState.errors.factoryName?.message}>
              <Input
                placeholder="Acme Operations"
                {...factoryName}
                onChange={(event) => {
                  void factoryName.onChange(event);
                  if (!slugEdited) setValue('factorySlug', slugify(event.target.value));
                }}
              />
            </Field>
            <Field
              label="Slug"
              required
              hint="Used in dashboard and API paths. Lowercase letters, digits and hyphens."
              error={formState.errors.factorySlug?.message}
            >
              <Input
                mono
                placeholder="acme-ops"
                {...factorySlug}
                onChange={(event) => {
                  setSlugEdited(event.target.value !== '');
                  void factorySlug.onChange(event);
                }}
              />
            </Field>
          </fieldset>
        </CardBody>
        <CardFooter>
          <Button type="submit" loading={formState.isSubmitting}>
            Create account and factory
          </Button>
        </CardFooter>
      </ClientForm>
    </Card>
  );
}
