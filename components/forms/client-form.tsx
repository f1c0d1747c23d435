'use client';

import type { ComponentProps } from 'react';
import { useHydrated } from './use-hydrated';

/**
 * Every form the browser submits through React. Until React has hydrated the
 * page, its controls are disabled (in a fieldset that takes no box of its
 * own): a click or an Enter before then would submit the form natively, and a
 * native GET puts what was typed (a password, a team secret's value) into the
 * URL, the history and access logs, while text typed into a field then is
 * overwritten when the form's state takes over. `method="post"` is the second
 * guard. The disabled look is held back while hydrating (the `disabled`
 * variant in app/globals.css), so pages do not flash grey on load.
 */
export function ClientForm({ children, ...props }: ComponentProps<'form'>) {
  const hydrated = useHydrated();
  return (
    <form method="post" noValidate {...props}>
      <fieldset disabled={!hydrated} data-hydrating={hydrated ? undefined : ''} className="contents">
        {children}
      </fieldset>
    </form>
  );
}
