import { handleIngress } from '@/lib/ingress/pipeline';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ uid: string; token: string }> };

// ANY /webhooks/w/[uid]/[token]: the URL-token form of the ingress
async function handler(request: Request, { params }: Context): Promise<Response> {
  return handleIngress(request, await params);
}

export { handler as POST, handler as GET, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
