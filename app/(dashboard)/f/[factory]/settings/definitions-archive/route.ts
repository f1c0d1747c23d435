import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { authorizeFactory } from '@/lib/domain/auth/guard';
import { definitionsArchive } from '@/lib/domain/definitions/archive';
import { readDefinitionFiles } from '@/lib/domain/definitions/service';
import { AppError, errorResponse } from '@/lib/platform/http/errors';

// GET /f/[factory]/settings/definitions-archive: every definition file as <slug>-definitions.tar.gz (admins)
export async function GET(_request: Request, { params }: { params: Promise<{ factory: string }> }): Promise<Response> {
  try {
    const user = await getCurrentUser();
    if (!user) throw new AppError('unauthorized', 'Sign in to download the definition files');
    const { factory } = await authorizeFactory(user, (await params).factory, 'factory:manage');
    const archive = definitionsArchive(await readDefinitionFiles(factory.id));
    return new Response(new Uint8Array(archive), {
      headers: {
        'Content-Type': 'application/gzip',
        'Content-Disposition': `attachment; filename="${factory.slug}-definitions.tar.gz"`,
        'Cache-Control': 'no-store',
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
