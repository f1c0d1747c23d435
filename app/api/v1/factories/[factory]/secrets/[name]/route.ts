import { withFactory } from '@/lib/adapters/api/handler';
import { putSecretSchema } from '@/lib/domain/secrets/schemas';
import { deleteSecret, putSecret } from '@/lib/domain/secrets/service';

type Params = { factory: string; name: string };

// PUT /api/v1/factories/{factory}/secrets/{name} with {"value"}: create or replace
export const PUT = withFactory<typeof putSecretSchema, Params>('factory:manage', putSecretSchema, async ({ context, params, input: { value } }) => {
  const { secret, created } = await putSecret(context.factory.id, params.name, value);
  return Response.json(
    { secret: { name: secret.name, version: secret.version, createdAt: secret.createdAt.toISOString(), updatedAt: secret.updatedAt.toISOString() } },
    { status: created ? 201 : 200 },
  );
});

// DELETE /api/v1/factories/{factory}/secrets/{name}: refused while a webhook uses it
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await deleteSecret(context.factory.id, params.name);
  return new Response(null, { status: 204 });
});
