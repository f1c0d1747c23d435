import { ButtonLink } from '@/components/ui/button';
import { CardFooter } from '@/components/ui/card';
import { ArrowLeftIcon, ArrowRightIcon } from '@/components/ui/icons';

export type PagerProps = {
  /** What is paged, for screen readers: "Delivery pages". */
  label: string;
  /** The first page's link, or null on the first page. */
  first: { href: string; text: string } | null;
  /** The previous page's link, when it is not the first page (a list by page number; a keyset cursor has no "previous"). */
  previous?: { href: string; text: string } | null;
  /** The next page's link, or null on the last page. */
  next: { href: string; text: string } | null;
};

/** Links to the first, the previous (a list by page number only) and the next page. */
export function Pager({ label, first, previous, next }: PagerProps) {
  return (
    <nav aria-label={label} className="flex items-center gap-2">
      {first ? (
        <ButtonLink href={first.href} variant="secondary" size="sm">
          <ArrowLeftIcon />
          {first.text}
        </ButtonLink>
      ) : null}
      {previous ? (
        <ButtonLink href={previous.href} variant="secondary" size="sm" rel="prev">
          <ArrowLeftIcon />
          {previous.text}
        </ButtonLink>
      ) : null}
      {next ? (
        <ButtonLink href={next.href} variant="secondary" size="sm" rel="next">
          {next.text}
          <ArrowRightIcon />
        </ButtonLink>
      ) : null}
    </nav>
  );
}

/**
 * The footer of a list shown by page number (lib/platform/paging.ts), when it has more than one
 * page: which page and rows are shown, and links to the first, the previous (past the second
 * page, where the first is the previous) and the next page.
 */
export function NumberedPager({
  list,
  what,
  label,
  href,
}: {
  list: { page: number; pages: number; perPage: number; total: number; rows: unknown[] };
  /** The rows' name: "factories". */
  what: string;
  label: string;
  href: (page: number) => string;
}) {
  if (list.pages <= 1) return null;
  const from = (list.page - 1) * list.perPage;
  return (
    <CardFooter align="between">
      <p className="text-[13px] text-fg-muted">
        {`Page ${list.page} of ${list.pages}: ${what} ${(from + 1).toLocaleString('en')}-${(from + list.rows.length).toLocaleString('en')} of ${list.total.toLocaleString('en')}`}
      </p>
      <Pager
        label={label}
        first={list.page > 1 ? { href: href(1), text: 'First page' } : null}
        previous={list.page > 2 ? { href: href(list.page - 1), text: 'Previous page' } : null}
        next={list.page < list.pages ? { href: href(list.page + 1), text: 'Next page' } : null}
      />
    </CardFooter>
  );
}
