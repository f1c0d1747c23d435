import 'server-only';
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { getAuthSecret } from '@/lib/platform/crypto/keys';
import { env } from '@/lib/platform/env';
import { createSession, deleteSession, SESSION_MAX_AGE_SECONDS } from '@/lib/domain/auth/sessions';
import { signInWithPassword } from '@/lib/domain/auth/sign-in';
import { signInErrorCodes, throttledCode } from '@/lib/domain/auth/sign-in-messages';
import { clientAddress } from '@/lib/platform/entry/client-address';
import { safeRedirectPath } from '@/lib/platform/http/redirect';
import { log } from '@/lib/platform/log';

// next-auth with email and password. The JWT in the cookie only carries the
// id of a Session row (see sessions.ts), which every request checks.

declare module 'next-auth' {
  interface Session {
    sid?: string;
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    sid?: string;
  }
}

let options: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  // next-auth builds absolute redirect URLs from NEXTAUTH_URL; ours is the public base URL.
  process.env.NEXTAUTH_URL ??= env().baseUrl;
  options ??= {
    secret: getAuthSecret(),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    // Secure cookies exactly when the public URL is https (behind a TLS proxy too).
    useSecureCookies: env().baseUrl.startsWith('https://'),
    pages: { signIn: '/signin', error: '/signin' },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { type: 'email' }, password: { type: 'password' } },
        async authorize(credentials, req) {
          const address = clientAddress(new Headers(req.headers as Record<string, string> | undefined));
          const outcome = await signInWithPassword({ email: credentials?.email, password: credentials?.password, address });
          if (outcome.ok) return { id: outcome.user.id, email: outcome.user.email, name: outcome.user.name };
          // A thrown message reaches the form (see sign-in-messages.ts); null is "wrong email or password".
          if (outcome.reason === 'throttled') throw new Error(throttledCode(outcome.retryAfterSeconds));
          if (outcome.reason === 'disabled') throw new Error(signInErrorCodes.disabled);
          return null;
        },
      }),
    ],
    callbacks: {
      // Only same-origin targets are followed (next-auth's default accepts any
      // path, including `/\evil.example`, which browsers read as another host).
      async redirect({ url, baseUrl }) {
        return `${baseUrl}${safeRedirectPath(url, baseUrl)}`;
      },
      async jwt({ token, user, trigger }) {
        if (trigger === 'signIn' && user) {
          const session = await createSession(user.id, undefined);
          token.sid = session.id;
        }
        return token;
      },
      // What /api/auth/session shows the browser: the user's name and email, never the session's ID
      // (the server reads it with serverSessionOptions()).
      async session({ session }) {
        return session;
      },
    },
    events: {
      async signOut({ token }) {
        if (token?.sid) await deleteSession(token.sid);
      },
    },
    logger: {
      // next-auth logs credentials-related errors with request details; keep
      // only the code so nothing sensitive reaches the logs.
      error: (code) => log('auth').error({ code }, 'next-auth error'),
      warn: (code) => (code === 'NEXTAUTH_URL' ? undefined : log('auth').warn({ code }, 'next-auth warning')),
      debug: () => undefined,
    },
  };
  return options;
}

let serverOptions: NextAuthOptions | undefined;

/**
 * The options the server's own getServerSession reads the session with: the same, and the
 * session's ID (`sid`), which every request checks against its Session row.
 */
export function serverSessionOptions(): NextAuthOptions {
  const base = authOptions();
  serverOptions ??= {
    ...base,
    callbacks: {
      ...base.callbacks,
      async session({ session, token }) {
        session.sid = token.sid;
        return session;
      },
    },
  };
  return serverOptions;
}
