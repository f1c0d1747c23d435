import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

export type EmptyStateProps = Omit<ComponentProps<'div'>, 'title'> & {
  /** An icon element, e.g. <InboxIcon />; sized automatically. */
  icon?: ReactNode;
  title: ReactNode;
  description?: ReactNode;
  /** Call to action, e.g. a Button or ButtonLink. */
  action?: ReactNode;
  /** Dashed outline, for use directly on the page rather than inside a Card. */
  bordered?: boolean;
};

export function EmptyState({ icon, title, description, action, bordered, className, children, ...props }: EmptyStateProps) {
  return (
    <div
      className={cn(
        'flex flex-col items-center justify-center px-6 py-12 text-center',
        bordered && 'rounded-card border border-dashed border-line-strong bg-surface',
        className,
      )}
      {...props}
    >
      {icon ? (
        <div
          aria-hidden="true"
          className="mb-4 flex size-10 items-center justify-center rounded-lg border border-line bg-surface text-fg-muted shadow-xs [&_svg]:size-5"
        >
          {icon}
        </div>
      ) : null}
      <h3 className="text-[15px] leading-6 font-semibold text-fg">{title}</h3>
      {description ? <p className="mt-1 max-w-sm text-fg-muted">{description}</p> : null}
      {children}
      {action ? <div className="mt-5 flex flex-wrap items-center justify-center gap-2">{action}</div> : null}
    </div>
  );
}
