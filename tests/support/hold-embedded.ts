// Test helper process: opens the embedded database in the folder given as
// argv[2], prints "ready <pid>" once a query ran (or "busy: <message>" and
// exits 3), then keeps the database open until stdin closes or SIGTERM.
// Run bundled (tests/support/bundle.ts), or with: node --conditions=react-server --import tsx tests/support/hold-embedded.ts <dir>
import fs from 'node:fs';
import path from 'node:path';
import { openAdapter } from '@/lib/platform/db/adapter';
import { EmbeddedDatabaseBusyError } from '@/lib/platform/db/embedded-lock';

const dataDir = process.argv[2]!;
// Simulates the PID-file lock of earlier versions naming this very process.
if (process.env.WRITE_OWN_PID_FILE) {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'tripline.lock'), String(process.pid));
}
const adapter = openAdapter({ kind: 'embedded', dataDir });
try {
  await adapter.pglite!.query('SELECT 1');
} catch (error) {
  console.log(error instanceof EmbeddedDatabaseBusyError ? `busy: ${error.message}` : `error: ${String(error)}`);
  process.exit(3);
}
console.log(`ready ${process.pid}`);
const close = () => void adapter.close().then(() => process.exit(0));
process.stdin.on('end', close);
process.stdin.resume();
process.once('SIGTERM', close);
