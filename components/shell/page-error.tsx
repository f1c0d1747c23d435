'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/**
 * What a dashboard page shows, inside its layout, when rendering it or one of its actions threw:
 * the server failed (the error is in its log, under the reference shown), or the browser could
 * not reach it. Try again reloads the page's data and renders it once more.
 */
export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <div className="mx-auto w-full max-w-2xl px-6 py-10">
      <Alert
        tone="danger"
        title="This page could not be shown"
        actions={
          <Button
            type="button"
            variant="secondary"
            size="sm"
            loading={pending}
            onClick={() =>
              startTransition(() => {
                router.refresh();
                reset();
              })
            }
          >
            Try again
          </Button>
        }
      >
        <p>
          Tripline did not answer, or failed on its side. If you had just saved or deleted something, reload the page to see whether it was done
          before trying it again.
        </p>
        {error.digest ? <p className="mt-1 text-[13px]">Reference for your administrator: {error.digest}</p> : null}
      </Alert>
    </div>
  );
}
