import Link from 'next/link';
import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';
import { ChevronRightIcon } from './icons';

export type Breadcrumb = { label: ReactNode; href?: string };

export type PageHeaderProps = Omit<ComponentProps<'header'>, 'title'> & {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons aligned right of the title. */
  actions?: ReactNode;
  /** Trail above the title; the last item is the current page. */
  breadcrumbs?: Breadcrumb[];
  /** Small content next to the title, e.g. a Badge. */
  meta?: ReactNode;
};

export function PageHeader({ title, description, actions, breadcrumbs, meta, className, children, ...props }: PageHeaderProps) {
  return (
    <header className={cn('mb-6', className)} {...props}>
      {breadcrumbs && breadcrumbs.length > 0 ? (
        <nav aria-label="Breadcrumb" className="mb-2">
          <ol className="flex flex-wrap items-center gap-1 text-[13px] text-fg-subtle">
            {breadcrumbs.map((crumb, i) => {
              const last = i === breadcrumbs.length - 1;
              return (
                <li key={i} className="flex min-w-0 items-center gap-1">
                  {crumb.href && !last ? (
                    <Link
                      href={crumb.href}
                      className="truncate rounded-sm hover:text-fg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
                    >
                      {crumb.label}
                    </Link>
                  ) : (
                    <span aria-current={last ? 'page' : undefined} className={cn('truncate', last && 'text-fg-muted')}>
                      {crumb.label}
                    </span>
                  )}
                  {!last ? <ChevronRightIcon className="size-3.5 shrink-0 text-zinc-400" /> : null}
                </li>
              );
            })}
          </ol>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-start justify-between gap-x-6 gap-y-3">
        <div className="min-w-0 flex-1 basis-56">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h1 className="text-xl leading-7 font-semibold tracking-tight text-fg">{title}</h1>
            {meta}
          </div>
          {description ? <p className="mt-1 max-w-3xl text-fg-muted">{description}</p> : null}
          {children}
        </div>
        {actions ? <div className="flex shrink-0 flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
    </header>
  );
}
