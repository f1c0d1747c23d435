import { useSyncExternalStore } from 'react';

// False in the server's HTML and until React has hydrated the page, true
// after. Forms that carry credentials keep their submit button disabled until
// then: a click that lands before hydration would otherwise submit the form
// natively, and a native GET puts the password into the URL (history, logs).

const subscribe = () => () => undefined;

export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
