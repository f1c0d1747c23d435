import type { ReactNode } from 'react';

// Every dashboard page reads the session and the database on each request.
export const dynamic = 'force-dynamic';

export default function DashboardLayout({ children }: { children: ReactNode }) {
  return children;
}
