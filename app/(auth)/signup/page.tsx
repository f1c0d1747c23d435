import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { getCurrentUser } from '@/lib/auth/current-user';
import { env } from '@/lib/env';
import { needsFirstRun } from '@/lib/users/service';

export const metadata: Metadata = { title: 'Sign up' };

// GET /signup
export default async function SignUpPage() {
  if (await needsFirstRun()) redirect('/setup');
  if (await getCurrentUser()) redirect('/');
  if (!env().allowSignup) redirect('/signin');
  return <SignUpForm />;
}
