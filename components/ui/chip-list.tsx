import { cn } from './cn';

/** A short list of literal values (IP ranges, event types) as small monospace chips. */
export function ChipList({ label, items, className }: { label: string; items: string[]; className?: string }) {
  return (
    <ul aria-label={label} className={cn('flex flex-wrap gap-1.5', className)}>
      {items.map((item) => (
        <li key={item} className="rounded border border-line bg-subtle px-1.5 py-0.5 font-mono text-[12px] text-fg">
          {item}
        </li>
      ))}
    </ul>
  );
}
