'use client';

import { usePathname } from 'next/navigation';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { XIcon } from '@/components/ui/icons';

/**
 * The sidebar on narrow screens: a Menu button that opens it as a modal
 * drawer on the native <dialog> (showModal), so focus moves inside and stays
 * there, the page behind is inert, Escape closes it and focus returns to the
 * button. It closes on navigation: it is open only for the path it was opened on.
 */
export function MobileNav({ header, children }: { header: ReactNode; children: ReactNode }) {
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const ref = useRef<HTMLDialogElement>(null);
  const pointerDownOnBackdrop = useRef(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="mobile-menu"
        aria-haspopup="dialog"
        onClick={() => setOpenOn(pathname)}
        className="inline-flex h-9 items-center gap-2 rounded-control border border-line-strong bg-surface px-3 text-sm font-medium text-fg shadow-xs hover:bg-subtle focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
      >
        <svg viewBox="0 0 20 20" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round">
          <path d="M3 5.5h14M3 10h14M3 14.5h14" />
        </svg>
        Menu
      </button>
      <dialog
        id="mobile-menu"
        ref={ref}
        aria-label="Menu"
        onClose={() => setOpenOn(null)}
        onPointerDown={(event) => {
          pointerDownOnBackdrop.current = event.target === event.currentTarget;
        }}
        onClick={(event) => {
          // A click on the backdrop, or on a link (even to the page already shown), closes it.
          const target = event.target as HTMLElement;
          if ((pointerDownOnBackdrop.current && target === event.currentTarget) || target.closest('a')) setOpenOn(null);
        }}
        className="fixed inset-y-0 left-0 m-0 h-dvh max-h-none w-80 max-w-[calc(100%-3rem)] border-r border-line bg-canvas p-0 text-fg shadow-overlay backdrop:bg-zinc-950/45 open:flex open:flex-col"
      >
        {open ? (
          <div className="flex min-h-0 flex-1 flex-col gap-5 overflow-y-auto px-3 py-3">
            <div className="flex items-center justify-between gap-3 pl-1.5">
              {header}
              <button
                type="button"
                onClick={() => setOpenOn(null)}
                className="inline-flex size-9 items-center justify-center rounded-control text-fg-muted hover:bg-subtle hover:text-fg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
              >
                <XIcon className="size-4" />
                <span className="sr-only">Close menu</span>
              </button>
            </div>
            {children}
          </div>
        ) : null}
      </dialog>
    </>
  );
}
