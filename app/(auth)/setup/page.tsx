import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { FirstRunForm } from '@/components/auth/first-run-form';
import { needsFirstRun } from '@/lib/domain/users/service';

export const metadata: Metadata = { title: 'Set up' };

// GET /setup: the first-run page, only while no account exists
export default async function SetupPage() {
  if (!(await needsFirstRun())) redirect('/signin');
  return <FirstRunForm />;
}
