import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { env } from '@/lib/platform/env';
import { needsFirstRun } from '@/lib/domain/users/service';

export const metadata: Metadata = { title: 'Sign up' };

// GET /signup: the form when TRIPLINE_ALLOW_SIGNUP=true; otherwise how to get an account
export default async function SignUpPage() {
  if (await needsFirstRun()) redirect('/setup');
  if (await getCurrentUser()) redirect('/');
  if (!env().allowSignup) {
    return (
      <Card>
        <CardHeader title="Sign-up is by invitation" description="Ask an admin of the factory you want to join for an invitation link." />
        <CardBody className="text-fg-muted">
          An invitation link lets you create your account and join the factory in one step. Links work once and expire, so ask
          for a new one if yours no longer works.
        </CardBody>
        <CardFooter align="between">
          <span className="text-[13px] text-fg-muted">Already have an account?</span>
          <ButtonLink href="/signin" variant="secondary">
            Sign in
          </ButtonLink>
        </CardFooter>
      </Card>
    );
  }
  return <SignUpForm />;
}
