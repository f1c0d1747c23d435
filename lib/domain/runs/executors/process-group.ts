import { readdir, readFile } from 'node:fs/promises';

// A run's program leads a process group of its own (spawned detached), so
// whatever it starts, unless a process leaves the group on purpose (setsid),
// can be signalled, and counted, as one.

// The groups of the runs in progress: killed when this process exits, however it exits short of
// SIGKILL (a second signal's process.exit, a fatal error, a shutdown whose stages ran out of time).
// Their programs run detached, so they would outlive it: with no time limit (a timer of the process
// that died) and no folder cleaned up, while the run is recorded as ended.
const running = new Set<number>();
let exitHooked = false;

/** Counts a run's process group among those to kill at exit; returns the function that lets it go. */
export function trackGroup(pgid: number): () => void {
  running.add(pgid);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', killRunningGroups);
  }
  return () => running.delete(pgid);
}

/** SIGKILL to every run's process group still tracked (synchronous: it runs in the process's exit). Returns how many. */
export function killRunningGroups(): number {
  const count = running.size;
  for (const pgid of running) signalGroup(pgid, 'SIGKILL');
  running.clear();
  return count;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/**
 * Whether a process of the group still lives. A zombie does not count: it has
 * exited and holds nothing but its entry in the process table until its
 * parent reaps it. Orphans are reparented to PID 1, and a container's PID 1
 * that is not an init (Docker without --init) never reaps them.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // Linux tells a zombie apart in /proc; elsewhere the signal's answer is all there is.
  if (process.platform !== 'linux') return true;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // After the command name, which may itself hold spaces and parentheses: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}
