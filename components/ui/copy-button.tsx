'use client';

import { useEffect, useRef, useState, type ComponentProps, type MouseEvent } from 'react';
import { cn } from './cn';
import { CheckIcon, CopyIcon } from './icons';

type CopyState = 'idle' | 'copied' | 'failed';

/** navigator.clipboard needs a secure context; self-hosted installs are often plain http, so fall back to execCommand. */
async function copyText(text: string, host: HTMLElement): Promise<boolean> {
  if (typeof navigator !== 'undefined' && navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through to the legacy path
    }
  }
  const previous = document.activeElement as HTMLElement | null;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0;pointer-events:none;';
  // Append next to the button: outside an open modal <dialog> the document is inert.
  host.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  previous?.focus({ preventScroll: true });
  return ok;
}

function useCopy(value: string, onCopied?: (value: string) => void) {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy(host: HTMLElement) {
    const ok = await copyText(value, host);
    setState(ok ? 'copied' : 'failed');
    if (ok) onCopied?.(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), 2000);
  }
  return { state, copy };
}

export type CopyButtonProps = Omit<ComponentProps<'button'>, 'value' | 'children'> & {
  /** Text put on the clipboard. */
  value: string;
  /** Accessible name (and visible text when showLabel). Default "Copy". */
  label?: string;
  /** Show the text next to the icon instead of an icon-only button. */
  showLabel?: boolean;
  /** "inverted" for dark surfaces such as CodeBlock. */
  appearance?: 'default' | 'inverted';
  size?: 'sm' | 'md';
  onCopied?: (value: string) => void;
};

export function CopyButton({
  value,
  label = 'Copy',
  showLabel = false,
  appearance = 'default',
  size = 'sm',
  onCopied,
  onClick,
  className,
  type = 'button',
  ...props
}: CopyButtonProps) {
  const { state, copy } = useCopy(value, onCopied);
  const feedback = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : null;

  return (
    <button
      {...props}
      type={type}
      aria-label={showLabel ? undefined : label}
      onClick={(event: MouseEvent<HTMLButtonElement>) => {
        onClick?.(event);
        if (!event.defaultPrevented) void copy(event.currentTarget.parentElement ?? document.body);
      }}
      data-state={state}
      className={cn(
        'relative inline-flex shrink-0 items-center justify-center gap-1.5 rounded-control font-medium whitespace-nowrap',
        'transition-colors duration-150 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600',
        'disabled:pointer-events-none disabled:opacity-50',
        size === 'sm' ? 'h-7 text-xs' : 'h-8 text-[13px]',
        showLabel ? 'px-2' : size === 'sm' ? 'w-7' : 'w-8',
        appearance === 'inverted'
          ? 'text-zinc-400 hover:bg-white/10 hover:text-zinc-100'
          : 'text-fg-muted hover:bg-subtle hover:text-fg',
        className,
      )}
    >
      {state === 'copied' ? (
        <CheckIcon className={cn('size-3.5', appearance === 'inverted' ? 'text-emerald-400' : 'text-emerald-600')} />
      ) : (
        <CopyIcon className="size-3.5" />
      )}
      {showLabel ? <span>{feedback ?? label}</span> : null}
      {!showLabel && feedback ? (
        <span
          aria-hidden="true"
          className="pointer-events-none absolute -top-8 left-1/2 -translate-x-1/2 rounded-md bg-zinc-900 px-2 py-1 text-xs font-medium text-white shadow-md"
        >
          {feedback}
        </span>
      ) : null}
      <span className="sr-only" aria-live="polite">
        {feedback === 'Copied' ? 'Copied to clipboard' : (feedback ?? '')}
      </span>
    </button>
  );
}

/** An identifier in running text (a delivery ID, a run ID) with an icon copy button. */
export function CopyableId({ value, label }: { value: string; label: string }) {
  return (
    <span className="flex min-w-0 items-center gap-1">
      <span className="min-w-0 font-mono text-[13px] break-all">{value}</span>
      <CopyButton value={value} label={label} className="-my-1" />
    </span>
  );
}

export type CopyFieldProps = Omit<ComponentProps<'input'>, 'value' | 'defaultValue' | 'type' | 'readOnly' | 'children'> & {
  /** The value shown and copied (a secret, URL, id…). */
  value: string;
  /** Accessible name of the copy button. Default "Copy". */
  copyLabel?: string;
  onCopied?: (value: string) => void;
};

/**
 * Read-only monospace value with a copy button. Label it with Field (the id goes to the input)
 * or an aria-label. `className` styles the outer box.
 */
export function CopyField({ value, copyLabel = 'Copy', onCopied, className, onFocus, ...props }: CopyFieldProps) {
  return (
    <div
      className={cn(
        'flex h-9 w-full min-w-0 items-stretch overflow-hidden rounded-control border border-line-strong bg-subtle/60 shadow-xs',
        'focus-within:border-accent-500 focus-within:ring-3 focus-within:ring-accent-500/20',
        className,
      )}
    >
      <input
        {...props}
        type="text"
        readOnly
        value={value}
        spellCheck={false}
        autoComplete="off"
        onFocus={(event) => {
          onFocus?.(event);
          event.currentTarget.select();
        }}
        className="min-w-0 flex-1 truncate bg-transparent px-3 font-mono text-[13px] text-fg outline-none"
      />
      <div className="flex items-center border-l border-line-strong bg-surface px-1">
        <CopyButton value={value} label={copyLabel} showLabel onCopied={onCopied} />
      </div>
    </div>
  );
}
