import 'server-only';
import fs from 'node:fs';
import path from 'node:path';

// One process at a time may open the embedded database. The lock file holds
// the owner's pid; a lock whose process is gone is stale and taken over.

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class EmbeddedDatabaseBusyError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (a running Tripline server?). ` +
        'Stop that process first, or run against PostgreSQL with DATABASE_URL.',
    );
    this.name = 'EmbeddedDatabaseBusyError';
  }
}

export function acquireEmbeddedLock(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'tripline.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        try {
          if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          // already gone
        }
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10);
      if (owner === process.pid) throw new Error(`The embedded database in ${dataDir} is already open in this process`);
      if (Number.isInteger(owner) && processIsAlive(owner)) throw new EmbeddedDatabaseBusyError(dataDir, owner);
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database in ${dataDir}`);
}
