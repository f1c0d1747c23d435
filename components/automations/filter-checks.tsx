import { CheckIcon, XIcon } from '@/components/ui/icons';
import type { FilterCheck } from '@/lib/ingress/filters';

// How a payload filter's conditions read wherever they are explained: Test
// filter in the editor and Why not on a delivery's page.

export function Mark({ passed }: { passed: boolean }) {
  return passed ? (
    <CheckIcon className="mt-0.5 size-4 shrink-0 text-emerald-600" aria-label="Passed" />
  ) : (
    <XIcon className="mt-0.5 size-4 shrink-0 text-red-600" aria-label="Failed" />
  );
}

/** One condition: its path, what it expected, what the payload held and why it failed or passed. */
export function Condition({ check }: { check: FilterCheck }) {
  return (
    <li className="flex gap-2 py-1.5" data-passed={check.passed}>
      <Mark passed={check.passed} />
      <p className="min-w-0 text-[13px] leading-5 text-fg-muted">
        <code className="font-mono text-fg">{check.path}</code>: expected <code className="font-mono text-fg break-all">{check.expected}</code>, got{' '}
        <code className="font-mono text-fg break-all">{check.actual}</code>{' '}
        <span className={check.passed ? 'text-emerald-700' : 'text-red-700'}>({check.reason})</span>
      </p>
    </li>
  );
}

export function Conditions({ checks, className }: { checks: FilterCheck[]; className?: string }) {
  return (
    <ul aria-label="Conditions" className={className}>
      {checks.map((check, index) => (
        <Condition key={index} check={check} />
      ))}
    </ul>
  );
}
