import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';
import { CopyButton } from './copy-button';

export type CodeBlockProps = Omit<ComponentProps<'div'>, 'children' | 'title'> & {
  /** The code, shown verbatim. */
  code: string;
  /** Shown in the header, e.g. "bash" or "json". */
  language?: string;
  /** Header label, e.g. "cURL". */
  title?: ReactNode;
  /** Show a copy button (default true). */
  copyable?: boolean;
  /** Wrap long lines instead of scrolling horizontally. */
  wrap?: boolean;
};

/** Dark monospace block for curl examples and JSON. */
export function CodeBlock({ code, language, title, copyable = true, wrap = false, className, ...props }: CodeBlockProps) {
  const header = title !== undefined || language !== undefined;
  return (
    <div
      className={cn('relative overflow-hidden rounded-lg border border-zinc-800 bg-zinc-950 text-zinc-100 shadow-card', className)}
      {...props}
    >
      {header ? (
        <div className="flex h-10 items-center justify-between gap-3 border-b border-white/10 bg-white/[0.03] pr-1.5 pl-4">
          <div className="flex min-w-0 items-center gap-2 text-xs">
            {title !== undefined ? <span className="truncate font-medium text-zinc-200">{title}</span> : null}
            {language ? <span className="font-mono text-zinc-400">{language}</span> : null}
          </div>
          {copyable ? <CopyButton value={code} appearance="inverted" label="Copy code" /> : null}
        </div>
      ) : copyable ? (
        <div className="absolute top-2 right-2 z-10">
          <CopyButton value={code} appearance="inverted" label="Copy code" />
        </div>
      ) : null}
      <pre
        tabIndex={0}
        className={cn(
          'overflow-x-auto px-4 py-3.5 font-mono text-[13px] leading-6 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent-400',
          wrap ? 'break-words whitespace-pre-wrap' : 'whitespace-pre',
          !header && copyable && 'pr-12',
        )}
      >
        <code>{code}</code>
      </pre>
    </div>
  );
}
