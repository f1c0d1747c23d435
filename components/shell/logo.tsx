import { cn } from '@/components/ui/cn';

/** The Tripline mark: a line that trips a signal. */
export function Logo({ className, withName = true }: { className?: string; withName?: boolean }) {
  return (
    <span className={cn('inline-flex items-center gap-2 font-semibold tracking-tight text-fg', className)}>
      <svg viewBox="0 0 24 24" aria-hidden="true" className="size-6">
        <rect width="24" height="24" rx="6" className="fill-accent-600" />
        <path d="M4 14h5l2-6 3 10 2-4h4" fill="none" stroke="white" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      {withName ? <span>Tripline</span> : null}
    </span>
  );
}
