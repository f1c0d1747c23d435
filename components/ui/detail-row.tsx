import type { ReactNode } from 'react';

/** One label/value row of a <dl> details card. */
export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-3.5 sm:grid-cols-[11rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-[13px] font-medium text-fg-muted sm:pt-0.5">{label}</dt>
      <dd className="min-w-0 text-fg">{children}</dd>
    </div>
  );
}
