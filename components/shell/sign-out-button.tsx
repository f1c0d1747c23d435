'use client';

import { signOut } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { menuItemClass } from '@/components/shell/menu';

export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      className={menuItemClass}
      onClick={async () => {
        // No redirect from next-auth: stay on whatever host the person uses.
        await signOut({ redirect: false });
        router.replace('/signin');
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
