import { Children, type ComponentProps, type ReactNode } from 'react';
import { cn } from './cn';

export type TableProps = ComponentProps<'table'> & {
  /** Classes for the horizontally scrolling wrapper. */
  containerClassName?: string;
  /**
   * Names the wrapper when it scrolls by itself (e.g. a height cap): it then
   * takes keyboard focus, so keyboard users can scroll it too (WCAG 2.1.1).
   */
  scrollLabel?: string;
};

/**
 * Compact data table. Put it inside a Card (it has no border of its own).
 *
 * Below the md breakpoint it becomes a list of stacked rows: the header row is
 * hidden visually (screen readers keep it), each row is a block and each cell
 * with a `label` shows it before its value, so nothing scrolls sideways on a
 * phone. Narrow-screen overrides are !important because the cells' own classes
 * (padding, widths, alignment) are written for the wide layout.
 */
export function Table({ className, containerClassName, scrollLabel, ...props }: TableProps) {
  const scrolls = scrollLabel ? { tabIndex: 0, role: 'region', 'aria-label': scrollLabel } : {};
  return (
    <div
      className={cn('w-full md:overflow-x-auto', scrollLabel && 'focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-accent-500', containerClassName)}
      {...scrolls}
    >
      <table className={cn('w-full border-collapse text-left text-sm max-md:block', className)} {...props} />
    </div>
  );
}

export function THead({ className, ...props }: ComponentProps<'thead'>) {
  return <thead className={cn('border-b border-line bg-subtle/60 max-md:sr-only', className)} {...props} />;
}

export function TBody({ className, ...props }: ComponentProps<'tbody'>) {
  return (
    <tbody
      className={cn('divide-y divide-line max-md:block [&>tr:not([data-empty]):hover]:bg-subtle/50', className)}
      {...props}
    />
  );
}

export function TR({ className, ...props }: ComponentProps<'tr'>) {
  return (
    <tr
      className={cn('transition-colors duration-75 max-md:flex max-md:flex-col max-md:gap-1.5 max-md:px-5 max-md:py-3.5', className)}
      {...props}
    />
  );
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

export type TDProps = ComponentProps<'td'> &
  CellOptions & {
    /** The column's name, shown before the value when the row is stacked on a narrow screen. */
    label?: string;
  };

const stackedCell =
  'max-md:block max-md:w-auto! max-md:max-w-none! max-md:p-0! max-md:text-left! max-md:whitespace-normal!';
const stackedLabel =
  'max-md:grid! max-md:grid-cols-[7.5rem_minmax(0,1fr)] max-md:items-baseline max-md:justify-items-start max-md:gap-3 ' +
  'max-md:before:text-[13px] max-md:before:font-medium max-md:before:text-fg-muted max-md:before:content-[attr(data-label)]';

export function TD({ className, numeric, label, ...props }: TDProps) {
  return (
    <td
      data-label={label}
      className={cn(
        'px-4 py-2.5 align-middle text-fg first:pl-5 last:pr-5',
        numeric && 'text-right tabular-nums',
        stackedCell,
        label && stackedLabel,
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
      <td colSpan={colSpan} className={cn('px-5 py-10 text-center max-md:block', className)} {...props}>
        <p className="font-medium text-fg">{title}</p>
        {description ? <p className="mt-1 text-fg-muted">{description}</p> : null}
        {children ? <div className="mt-4 flex justify-center gap-2">{children}</div> : null}
      </td>
    </tr>
  );
}

export type DataTableColumn = {
  /** The header text; for an actions column, the name screen readers hear (hidden on screen). */
  header: string;
  className?: string;
  numeric?: boolean;
  /** Only for screen readers, e.g. the column of row actions. */
  hidden?: boolean;
};

export type DataTableProps = Omit<TableProps, 'children'> & {
  columns: DataTableColumn[];
  /** What an empty table says (title, description, an action under them); without it, the caller shows its own. */
  empty?: Omit<TableEmptyProps, 'colSpan'>;
  /** The rows (TR elements); none draws the empty state across every column. */
  children?: ReactNode;
};

/**
 * The dashboard's table of records: a header row from `columns`, the rows,
 * and an empty state spanning the columns when there are none. The column
 * of row actions keeps its name for screen readers only.
 */
export function DataTable({ columns, empty, children, ...props }: DataTableProps) {
  const rows = Children.toArray(children);
  return (
    <Table {...props}>
      <THead>
        <TR>
          {columns.map((column) => (
            <TH key={column.header} numeric={column.numeric} className={column.className}>
              {column.hidden ? <span className="sr-only">{column.header}</span> : column.header}
            </TH>
          ))}
        </TR>
      </THead>
      <TBody>{rows.length || !empty ? rows : <TableEmpty colSpan={columns.length} {...empty} />}</TBody>
    </Table>
  );
}
