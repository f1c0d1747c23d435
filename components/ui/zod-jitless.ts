import { z } from 'zod';

// Zod without its JIT in the browser: the JIT compiles parsers with
// `new Function`, and merely probing whether it may (zod does on its first
// parse) is an eval that the pages' Content-Security-Policy refuses and
// reports (lib/platform/http/security-headers.ts). The interpreted parsers give the
// same results. Imported for this side effect by components/ui/zod-config.tsx
// (in the root layout, so every page has it before any component parses) and
// by components/ui/zod-resolver.ts.
z.config({ jitless: true });
