import NextAuth from 'next-auth';
import { authOptions } from '@/lib/domain/auth/options';

// GET|POST /api/auth/*: next-auth's sign-in, sign-out, session and CSRF endpoints
type Context = { params: Promise<{ nextauth: string[] }> };

async function handler(request: Request, context: Context): Promise<Response> {
  return NextAuth(request as never, context as never, authOptions()) as Promise<Response>;
}

export { handler as GET, handler as POST };
