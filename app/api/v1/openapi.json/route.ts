import { openApiDocument } from '@/lib/adapters/api/openapi';
import { env } from '@/lib/platform/env';

// GET /api/v1/openapi.json: the API's description (public, no token needed)
export function GET(): Response {
  return Response.json(openApiDocument(env().baseUrl));
}
