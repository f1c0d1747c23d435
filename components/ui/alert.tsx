import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';
import { AlertCircleIcon, AlertTriangleIcon, CheckCircleIcon, InfoIcon } from './icons';

export type AlertTone = 'info' | 'success' | 'warning' | 'danger';

const tones: Record<AlertTone, { box: string; icon: string; Icon: typeof InfoIcon }> = {
  info: { box: 'border-sky-200 bg-sky-50 text-sky-900', icon: 'text-sky-600', Icon: InfoIcon },
  success: { box: 'border-emerald-200 bg-emerald-50 text-emerald-900', icon: 'text-emerald-600', Icon: CheckCircleIcon },
  warning: { box: 'border-amber-200 bg-amber-50 text-amber-900', icon: 'text-amber-600', Icon: AlertTriangleIcon },
  danger: { box: 'border-red-200 bg-red-50 text-red-900', icon: 'text-red-600', Icon: AlertCircleIcon },
};

export type AlertProps = Omit<ComponentProps<'div'>, 'title'> & {
  tone?: AlertTone;
  title?: ReactNode;
  /** Buttons/links under the body. */
  actions?: ReactNode;
  /** Hide the leading icon. */
  hideIcon?: boolean;
};

/** Inline message. Warning/danger use role="alert" (announced), info/success role="status". */
export function Alert({ tone = 'info', title, actions, hideIcon, className, children, role, ...props }: AlertProps) {
  const t = tones[tone];
  return (
    <div
      role={role ?? (tone === 'danger' || tone === 'warning' ? 'alert' : 'status')}
      className={cn('flex gap-3 rounded-lg border px-4 py-3', t.box, className)}
      {...props}
    >
      {hideIcon ? null : <t.Icon className={cn('mt-0.5 size-4 shrink-0', t.icon)} />}
      <div className="min-w-0 flex-1">
        {title ? <p className="font-medium">{title}</p> : null}
        {children ? <div className={cn('[&_a]:font-medium [&_a]:underline [&_a]:underline-offset-2', title && 'mt-0.5 opacity-90')}>{children}</div> : null}
        {actions ? <div className="mt-3 flex flex-wrap gap-2">{actions}</div> : null}
      </div>
    </div>
  );
}
