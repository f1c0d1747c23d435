'use client';

import { signOut } from 'next-auth/react';
import { menuItemClass } from '@/components/shell/menu';

export function SignOutButton() {
  return (
    <button type="button" className={menuItemClass} onClick={() => void signOut({ callbackUrl: '/signin' })}>
      Sign out
    </button>
  );
}
