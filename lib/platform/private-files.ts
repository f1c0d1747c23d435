import fs from 'node:fs';

// The data folder holds password hashes, encrypted secrets with their key,
// and every delivery's body: no other local user may read it.
//
// Most of its files are not written by Tripline's code but by the embedded
// database (PGlite writes its files through Node with the modes of a default
// umask, whatever PostgreSQL asks for), by git (repository clones) and by
// tar (the package's template). A mode passed at each call cannot reach
// those, and a call that forgets it goes unnoticed. So the boundary is the
// process's umask, set once by every entry before anything touches the data
// folder: the server (server.ts), the command line (cli/tripline.ts, which
// the npm package's launcher runs). Folders Tripline creates there are also
// made 0700 explicitly, and one created before this rule (or by hand) is
// tightened when it is opened: privateFolder().
//
// The umask also applies to what the process writes elsewhere, all read by
// the same user: Next.js's cache under .next (and the whole build when
// `tripline start` builds a clone), a migration `tripline migrate create`
// writes, a run's working folder (0700 already). And to whatever a run's
// program creates: a command that must create files for other users sets its
// own umask (`umask 022; ...`).

/** Group and other lose every permission on what the process creates from now on: folders 0700, files 0600. */
const PRIVATE_UMASK = 0o077;

/** Sets the process's umask to PRIVATE_UMASK: called first by each entry (the server, the command line). */
export function keepNewFilesPrivate(): void {
  process.umask(PRIVATE_UMASK);
}

/**
 * Creates `dir` (and any missing parent) with mode 0700, or takes group and
 * other permissions off it when it exists: a data folder created by an older
 * version, by hand, or by a test under umask 022. A folder of another owner
 * cannot be changed: the log says so, and Tripline carries on.
 */
export function privateFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { mode } = fs.statSync(dir);
  if ((mode & 0o077) === 0) return;
  try {
    fs.chmodSync(dir, mode & 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EACCES') throw error;
    // Loaded only then: the command line's entry imports this module, and most commands never log.
    void import('@/lib/platform/log').then(({ log }) =>
      log('files').warn({ dir, mode: (mode & 0o777).toString(8) }, 'cannot make the folder private (another user owns it): other local users may read its files'),
    );
  }
}
