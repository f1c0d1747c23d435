import type { SchemeInfo } from '@/lib/ingress/signatures/registry';
import { cn } from '@/components/ui/cn';
import { CopyField } from '@/components/ui/copy-button';

/**
 * A provider's setup guide as the registry describes it: where the URL and secret go, the secret's shape, and what arrives first.
 * `verifyToken`: for Meta, the value its dashboard asks for (null when this person cannot see it, or the app secret is not in yet).
 */
export function SchemeSetup({ scheme, className, verifyToken }: { scheme: SchemeInfo; className?: string; verifyToken?: string | null }) {
  return (
    <div className={cn('flex flex-col gap-3', className)}>
      <ol className="flex flex-col gap-2">
        {scheme.setup.map((step, index) => (
          <li key={index} className="flex gap-3 text-[13px] leading-5 text-fg-muted">
            <span
              aria-hidden="true"
              className="flex size-5 shrink-0 items-center justify-center rounded-full bg-accent-50 text-[11px] font-semibold text-accent-700 ring-1 ring-accent-600/20 ring-inset"
            >
              {index + 1}
            </span>
            <span className="min-w-0 pt-px">{step}</span>
          </li>
        ))}
      </ol>
      <dl className="flex flex-col gap-1.5 text-[13px] leading-5 text-fg-muted">
        <div>
          <dt className="inline font-medium text-fg">The secret: </dt>
          <dd className="inline">{scheme.secretHint}.</dd>
        </div>
        <div>
          <dt className="inline font-medium text-fg">What {scheme.displayName} sends first: </dt>
          <dd className="inline">{scheme.firstRequest}</dd>
        </div>
      </dl>
      {verifyToken === undefined ? null : (
        <div className="flex flex-col gap-1.5 text-[13px] leading-5">
          <span className="font-medium text-fg">Verify token</span>
          {verifyToken === null ? (
            <span className="text-fg-muted">Shown to admins here once the app secret is entered.</span>
          ) : (
            <CopyField value={verifyToken} aria-label="Verify token" copyLabel="Copy verify token" />
          )}
        </div>
      )}
    </div>
  );
}
