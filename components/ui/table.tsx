import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

export type TableProps = ComponentProps<'table'> & {
  /** Classes for the horizontally scrolling wrapper. */
  containerClassName?: string;
};

/** Compact data table. Put it inside a Card (it has no border of its own). */
export function Table({ className, containerClassName, ...props }: TableProps) {
  return (
    <div className={cn('w-full overflow-x-auto', containerClassName)}>
      <table className={cn('w-full border-collapse text-left text-sm', className)} {...props} />
    </div>
  );
}

export function THead({ className, ...props }: ComponentProps<'thead'>) {
  return <thead className={cn('border-b border-line bg-subtle/60', className)} {...props} />;
}

export function TBody({ className, ...props }: ComponentProps<'tbody'>) {
  return (
    <tbody
      className={cn('divide-y divide-line [&>tr:not([data-empty]):hover]:bg-subtle/50', className)}
      {...props}
    />
  );
}

export function TR({ className, ...props }: ComponentProps<'tr'>) {
  return <tr className={cn('transition-colors duration-75', className)} {...props} />;
}

type CellOptions = {
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
};

export function TH({ className, numeric, scope = 'col', ...props }: ComponentProps<'th'> & CellOptions) {
  return (
    <th
      scope={scope}
      className={cn(
        'h-9 px-4 align-middle text-xs font-medium whitespace-nowrap text-fg-muted first:pl-5 last:pr-5',
        numeric ? 'text-right' : 'text-left',
        className,
      )}
      {...props}
    />
  );
}

export function TD({ className, numeric, ...props }: ComponentProps<'td'> & CellOptions) {
  return (
    <td
      className={cn(
        'px-4 py-2.5 align-middle text-fg first:pl-5 last:pr-5',
        numeric && 'text-right tabular-nums',
        className,
      )}
      {...props}
    />
  );
}

export type TableEmptyProps = Omit<ComponentProps<'td'>, 'title'> & {
  /** Number of columns to span. */
  colSpan: number;
  title?: ReactNode;
  description?: ReactNode;
};

/** A full-width row for "nothing here yet". Children (e.g. a button) render under the text. */
export function TableEmpty({ colSpan, title = 'No results', description, className, children, ...props }: TableEmptyProps) {
  return (
    <tr data-empty="">
      <td colSpan={colSpan} className={cn('px-5 py-10 text-center', className)} {...props}>
        <p className="font-medium text-fg">{title}</p>
        {description ? <p className="mt-1 text-fg-muted">{description}</p> : null}
        {children ? <div className="mt-4 flex justify-center gap-2">{children}</div> : null}
      </td>
    </tr>
  );
}
