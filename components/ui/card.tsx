import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

export type CardProps = ComponentProps<'div'>;

/** White surface with a 1px border. Compose with CardHeader / CardBody / CardFooter, or put a Table directly inside. */
export function Card({ className, ...props }: CardProps) {
  return (
    <div className={cn('flex flex-col overflow-hidden rounded-card border border-line bg-surface shadow-card', className)} {...props} />
  );
}

export type CardHeaderProps = Omit<ComponentProps<'div'>, 'title'> & {
  title?: ReactNode;
  description?: ReactNode;
  /** Buttons/links aligned right. */
  actions?: ReactNode;
  /** Heading element for the title (default h2). */
  titleAs?: 'h2' | 'h3' | 'h4';
  /** Draws a bottom border (useful above a Table). Default true. */
  divider?: boolean;
};

export function CardHeader({
  title,
  description,
  actions,
  titleAs: Title = 'h2',
  divider = true,
  className,
  children,
  ...props
}: CardHeaderProps) {
  return (
    <div
      className={cn('flex flex-wrap items-start justify-between gap-x-4 gap-y-2 px-5 py-4', divider && 'border-b border-line', className)}
      {...props}
    >
      <div className="min-w-0 flex-1 basis-56">
        {title ? <Title className="text-[15px] leading-6 font-semibold text-fg">{title}</Title> : null}
        {description ? <p className="mt-0.5 text-fg-muted">{description}</p> : null}
        {children}
      </div>
      {actions ? <div className="flex max-w-full shrink-0 flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export type CardBodyProps = ComponentProps<'div'>;

export function CardBody({ className, ...props }: CardBodyProps) {
  return <div className={cn('flex-1 px-5 py-5', className)} {...props} />;
}

export type CardFooterProps = ComponentProps<'div'> & {
  /** Horizontal alignment of the footer content. Default "end". */
  align?: 'start' | 'between' | 'end';
};

const footerAlign = { start: 'justify-start', between: 'justify-between', end: 'justify-end' } as const;

export function CardFooter({ className, align = 'end', ...props }: CardFooterProps) {
  return (
    <div
      className={cn('flex flex-wrap items-center gap-2 border-t border-line bg-subtle/50 px-5 py-3', footerAlign[align], className)}
      {...props}
    />
  );
}
