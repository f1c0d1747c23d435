import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';

// Every form's resolver comes from here, so zod runs without its JIT in the
// browser: the JIT compiles parsers with `new Function`, and merely probing
// whether it may (zod does on its first parse) is an eval that the pages'
// Content-Security-Policy refuses and reports (lib/http/security-headers.ts).
// The interpreted parsers give the same results.
z.config({ jitless: true });

export { zodResolver };
