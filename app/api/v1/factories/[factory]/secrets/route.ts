import { withFactory } from '@/lib/adapters/api/handler';
import { listSecrets } from '@/lib/domain/secrets/service';

// GET /api/v1/factories/{factory}/secrets: names and dates, never values
export const GET = withFactory<{ factory: string }>('factory:manage', async ({ context }) => {
  const secrets = await listSecrets(context.factory.id);
  return Response.json({
    secrets: secrets.map((s) => ({
      name: s.name,
      version: s.version,
      createdAt: s.createdAt.toISOString(),
      updatedAt: s.updatedAt.toISOString(),
      usedBy: s.usedBy.map((w) => w.uid),
    })),
  });
});
