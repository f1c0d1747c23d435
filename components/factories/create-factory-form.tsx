'use client';

import { zodResolver } from '@/components/ui/zod-resolver';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { applyFieldErrors } from '@/components/forms/apply-field-errors';
import { FormError } from '@/components/forms/form-error';
import { Button } from '@/components/ui/button';
import { Card, CardBody, CardFooter } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { createFactoryAction } from '@/lib/domain/factories/actions';
import { createFactorySchema, slugify, type CreateFactoryInput } from '@/lib/domain/factories/schemas';
import { ClientForm } from '@/components/forms/client-form';
import { reach } from '@/components/forms/reach';

export function CreateFactoryForm() {
  const router = useRouter();
  const [formError, setFormError] = useState<string | null>(null);
  const [slugEdited, setSlugEdited] = useState(false);
  const { register, handleSubmit, formState, setError, setValue } = useForm<CreateFactoryInput>({
    resolver: zodResolver(createFactorySchema),
    defaultValues: { name: '', slug: '' },
  });
  const name = register('name');
  const slug = register('slug');

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    const result = await reach(createFactoryAction)(values);
    if (!result.ok) {
      setFormError(applyFieldErrors(result.error, setError, ['name', 'slug']));
      return;
    }
    router.push(`/f/${result.data.slug}/automations`);
    router.refresh();
  });

  return (
    <Card className="max-w-xl">
      <ClientForm onSubmit={onSubmit}>
        <CardBody className="flex flex-col gap-4">
          <FormError message={formError} />
          <Field label="Name" required error={formState.errors.name?.message}>
            <Input
              autoFocus
              {...name}
              onChange={(event) => {
                void name.onChange(event);
                if (!slugEdited) setValue('slug', slugify(event.target.value));
              }}
            />
          </Field>
          <Field label="Slug" required hint="Used in dashboard and API paths." error={formState.errors.slug?.message}>
            <Input
              mono
              {...slug}
              onChange={(event) => {
                setSlugEdited(event.target.value !== '');
                void slug.onChange(event);
              }}
            />
          </Field>
        </CardBody>
        <CardFooter>
          <Button type="submit" loading={formState.isSubmitting}>
            Create factory
          </Button>
        </CardFooter>
      </ClientForm>
    </Card>
  );
}
