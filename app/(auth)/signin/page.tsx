import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { env } from '@/lib/platform/env';
import { safeRedirectPath } from '@/lib/platform/http/redirect';
import { needsFirstRun } from '@/lib/domain/users/service';

export const metadata: Metadata = { title: 'Sign in' };

// GET /signin
export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await needsFirstRun()) redirect('/setup');
  // Only same-origin targets are followed after sign-in (no open redirect).
  const callbackUrl = safeRedirectPath((await searchParams).callbackUrl, env().baseUrl);
  if (await getCurrentUser()) redirect(callbackUrl);
  return <SignInForm callbackUrl={callbackUrl} allowSignUp={env().allowSignup} />;
}
