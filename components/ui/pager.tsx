import { ButtonLink } from '@/components/ui/button';
import { ArrowLeftIcon, ArrowRightIcon } from '@/components/ui/icons';

export type PagerProps = {
  /** What is paged, for screen readers: "Delivery pages". */
  label: string;
  /** The first page's link, or null on the first page. */
  first: { href: string; text: string } | null;
  /** The next page's link, or null on the last page. */
  next: { href: string; text: string } | null;
};

/** Links to the first and the next page of a cursor-paged list (there is no "previous" with a keyset cursor). */
export function Pager({ label, first, next }: PagerProps) {
  return (
    <nav aria-label={label} className="flex items-center gap-2">
      {first ? (
        <ButtonLink href={first.href} variant="secondary" size="sm">
          <ArrowLeftIcon />
          {first.text}
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
