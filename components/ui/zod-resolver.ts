import '@/components/ui/zod-jitless';
import { zodResolver } from '@hookform/resolvers/zod';

// Every form's resolver comes from here, with zod configured for the pages'
// Content-Security-Policy (components/ui/zod-jitless.ts).
export { zodResolver };
