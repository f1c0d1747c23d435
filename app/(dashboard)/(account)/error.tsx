'use client';

import { PageError } from '@/components/shell/page-error';

// Any error while rendering a page of this area, or thrown by an action: shown inside the area's layout.
export default function AreaError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} />;
}
