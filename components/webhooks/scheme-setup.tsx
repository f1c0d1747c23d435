import type { SchemeInfo } from '@/lib/ingress/signatures/registry';
import { cn } from '@/components/ui/cn';

/** A provider's setup guide as the registry describes it: where the URL and secret go, the secret's shape, and what arrives first. */
export function SchemeSetup({ scheme, className }: { scheme: SchemeInfo; className?: string }) {
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
    </div>
  );
}
