import type { ReactNode } from 'react';
import { Logo } from '@/components/shell/logo';

export const dynamic = 'force-dynamic';

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center bg-subtle/60 px-4 py-16">
      <Logo className="mb-8 text-lg" />
      <div className="w-full max-w-md">{children}</div>
    </main>
  );
}
