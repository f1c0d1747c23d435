'use client';

import '@/components/ui/zod-jitless';

/** Rendered once by the root layout: loads zod's browser configuration on every page. */
export function ZodConfig(): null {
  return null;
}
