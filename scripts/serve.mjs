// Serves an existing build through Tripline's server entry (server.ts):
// `node scripts/serve.mjs`. `npm start` does the same after its build check.
//
// server.ts is TypeScript, loaded through tsx's module hooks. The hooks are
// removed once it is loaded: left in place, every module load the server
// does while serving goes through them, which cost about a third of the
// ingress's throughput (docs/benchmarks.md). Nothing is loaded through tsx
// after start: the app's own code comes from the compiled build.
import { register } from 'tsx/esm/api';

const unregister = register();
await import('../server.ts');
unregister();
