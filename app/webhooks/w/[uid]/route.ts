import { handleIngress } from '@/lib/ingress/pipeline';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ uid: string }> };

// ANY /webhooks/w/[uid]: receive a delivery (only POST is accepted; lib/ingress answers the rest)
async function handler(request: Request, { params }: Context): Promise<Response> {
  return handleIngress(request, await params);
}

export { handler as POST, handler as GET, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
