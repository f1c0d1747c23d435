'use client';

import { useEffect, useId, useRef, useState, useTransition, type ComponentProps, type ReactNode } from 'react';
import { Button, type ButtonSize, type ButtonVariant } from './button';
import { cn } from './cn';
import { XIcon } from './icons';

export type DialogProps = Omit<ComponentProps<'dialog'>, 'open' | 'title' | 'children'> & {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  /** Body content. */
  children?: ReactNode;
  /** Footer content, usually buttons (right-aligned). */
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg';
  /** Allow Escape, backdrop click and the close button to close it (default true). */
  dismissible?: boolean;
};

const widths = { sm: 'max-w-sm', md: 'max-w-lg', lg: 'max-w-2xl' } as const;

/**
 * Modal on the native <dialog> (showModal): focus moves inside and is trapped, Escape closes,
 * focus returns to the opener. Put `data-autofocus` on the element that should get focus first.
 */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  footer,
  size = 'md',
  dismissible = true,
  className,
  onClose,
  onCancel,
  ...props
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const pointerDownOnBackdrop = useRef(false);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  // Close if unmounted while open so the page does not stay inert.
  useEffect(() => {
    const dialog = ref.current;
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);

  return (
    <dialog
      {...props}
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onClose={(event) => {
        onClose?.(event);
        // The close event is async: ignore it if the dialog was re-opened meanwhile.
        if (open && !event.currentTarget.open) onOpenChange(false);
      }}
      onCancel={(event) => {
        onCancel?.(event);
        if (!dismissible) event.preventDefault();
      }}
      onPointerDown={(event) => {
        pointerDownOnBackdrop.current = event.target === event.currentTarget;
      }}
      onClick={(event) => {
        if (dismissible && pointerDownOnBackdrop.current && event.target === event.currentTarget) onOpenChange(false);
      }}
      className={cn(
        'm-auto w-[calc(100%-2rem)] max-h-[calc(100dvh-2rem)] overflow-hidden rounded-xl border-0 bg-surface p-0 text-left font-normal text-fg shadow-overlay',
        'open:flex open:flex-col',
        'opacity-0 scale-[0.98] transition-[opacity,scale,display,overlay] transition-discrete duration-150 ease-out',
        'open:opacity-100 open:scale-100 starting:open:opacity-0 starting:open:scale-[0.98]',
        'backdrop:bg-zinc-950/0 backdrop:transition-[background-color,display,overlay] backdrop:transition-discrete backdrop:duration-150',
        'open:backdrop:bg-zinc-950/45 starting:open:backdrop:bg-zinc-950/0',
        widths[size],
        className,
      )}
    >
      <div className="flex min-h-0 flex-1 flex-col">
        <div className={cn('px-6 pt-5 pr-12', children ? 'pb-1' : 'pb-5')}>
          <h2 id={titleId} className="text-base leading-6 font-semibold text-fg">
            {title}
          </h2>
          {description ? (
            <div id={descriptionId} className="mt-1 text-fg-muted">
              {description}
            </div>
          ) : null}
        </div>
        {children ? <div className="min-h-0 flex-1 overflow-y-auto px-6 pt-3 pb-5">{children}</div> : null}
        {footer ? (
          <div className="flex flex-wrap items-center justify-end gap-2 border-t border-line bg-subtle/50 px-6 py-3.5">
            {footer}
          </div>
        ) : null}
      </div>
      {dismissible ? (
        <button
          type="button"
          aria-label="Close"
          onClick={() => onOpenChange(false)}
          className="absolute top-4 right-4 inline-flex size-7 items-center justify-center rounded-md text-fg-subtle transition-colors hover:bg-subtle hover:text-fg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
        >
          <XIcon className="size-4" />
        </button>
      ) : null}
    </dialog>
  );
}

export type ConfirmDialogProps = {
  /** Content of the trigger button. */
  trigger: ReactNode;
  triggerVariant?: ButtonVariant;
  triggerSize?: ButtonSize;
  triggerClassName?: string;
  triggerDisabled?: boolean;
  title: ReactNode;
  description?: ReactNode;
  /** Extra body content. */
  children?: ReactNode;
  confirmLabel?: ReactNode;
  cancelLabel?: ReactNode;
  /** Style of the confirm button (default "danger"). */
  confirmVariant?: 'danger' | 'primary';
  /** Run by the confirm button; the dialog closes when it resolves. */
  onConfirm: () => void | Promise<void>;
  size?: DialogProps['size'];
};

/**
 * Trigger button + confirmation modal for destructive actions.
 * e.g. <ConfirmDialog trigger="Delete" title="Delete this webhook?" confirmLabel="Delete webhook"
 *        onConfirm={deleteWebhook} />
 */
export function ConfirmDialog({
  trigger,
  triggerVariant = 'danger',
  triggerSize = 'md',
  triggerClassName,
  triggerDisabled,
  title,
  description,
  children,
  confirmLabel = 'Confirm',
  cancelLabel = 'Cancel',
  confirmVariant = 'danger',
  onConfirm,
  size = 'sm',
}: ConfirmDialogProps) {
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  return (
    <>
      <Button
        type="button"
        variant={triggerVariant}
        size={triggerSize}
        className={triggerClassName}
        disabled={triggerDisabled}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {trigger}
      </Button>
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!pending) setOpen(next);
        }}
        title={title}
        description={description}
        size={size}
        role="alertdialog"
        footer={
          <>
            <Button type="button" variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
              {cancelLabel}
            </Button>
            <Button
              type="button"
              variant={confirmVariant}
              loading={pending}
              onClick={() =>
                startTransition(async () => {
                  await onConfirm();
                  setOpen(false);
                })
              }
            >
              {confirmLabel}
            </Button>
          </>
        }
      >
        {children}
      </Dialog>
    </>
  );
}
