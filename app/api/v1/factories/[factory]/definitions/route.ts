import { withFactory } from '@/lib/adapters/api/handler';
import { getDefinitionsStatus, readDefinitionFiles } from '@/lib/domain/definitions/service';

type Params = { factory: string };

// GET /api/v1/factories/{factory}/definitions: the factory's definition files (admins)
export const GET = withFactory<Params>('factory:manage', async ({ context }) => {
  const [status, files] = await Promise.all([getDefinitionsStatus(context.factory.id), readDefinitionFiles(context.factory.id)]);
  return Response.json({
    configSource: status.configSource,
    // The location without credentials; a stored credential is only ever said to exist.
    repository: status.configSource === 'repository' ? { url: status.repoUrl, branch: status.repoBranch, credentialStored: status.repoCredentialStored } : null,
    appliedCommit: status.appliedCommit,
    appliedAt: status.appliedAt?.toISOString() ?? null,
    lastFailure: status.lastFailure,
    files,
  });
});
