import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { ZodConfig } from '@/components/ui/zod-config';
import './globals.css';

// Every page depends on the session or the database: render per request,
// never at build time (the build must not open the database).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Tripline', template: '%s · Tripline' },
  description: 'Webhook ingress for automations',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <ZodConfig />
        {children}
      </body>
    </html>
  );
}
