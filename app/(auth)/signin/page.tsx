import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { getCurrentUser } from '@/lib/auth/current-user';
import { env } from '@/lib/env';
import { needsFirstRun } from '@/lib/users/service';

export const metadata: Metadata = { title: 'Sign in' };

// Only same-site paths are followed after sign-in (no open redirect).
function safeCallback(value: string | string[] | undefined): string {
  const path = Array.isArray(value) ? value[0] : value;
  return path && path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

// GET /signin
export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await needsFirstRun()) redirect('/setup');
  const callbackUrl = safeCallback((await searchParams).callbackUrl);
  if (await getCurrentUser()) redirect(callbackUrl);
  return <SignInForm callbackUrl={callbackUrl} allowSignUp={env().allowSignup} />;
}
