import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { executeCommand } from '@/lib/domain/runs/executors/command';
import { killRunningGroups } from '@/lib/domain/runs/executors/process-group';
import type { ClaimedRun, ExecutionOutcome } from '@/lib/domain/runs/executors/types';
import { budget } from '@/scripts/speed.mjs';

// Stopping a command run as a process group: SIGTERM first, SIGKILL once the
// grace period is over, and the run ends only when no process of the group
// lives: one that ignores SIGTERM, and one left behind by a leader that had
// already exited (an orphan that no longer holds the output pipes).

const run: ClaimedRun = {
  id: 'run_stop',
  automationId: 'auto',
  automationName: 'Auto',
  prompt: 'Do it.',
  envelope: composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_test', deliveryId: 'd1', body: '{}' }),
  attachments: [{ name: 'event-payload.json', contentType: 'application/json', content: '{}' }],
  attempt: 1,
  worker: 'w',
};

/** Live processes of a process group, as ps sees them; a zombie (exited, not yet reaped) is not one. */
function groupProcesses(pgid: number): string[] {
  let listing: string;
  try {
    listing = execFileSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pgid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
  return listing.split('\n').filter((line) => line.trim() && !/^\s*\d+\s+Z/.test(line));
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tripline-stop-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;

/**
 * Starts the program (which writes its process group's ID to a file first:
 * its output is only seen at the end), waits until `processes` of its group
 * are up, cancels it and waits for the outcome.
 */
async function startAndCancel(program: string, options: { graceMs: number; processes: number }) {
  const pgidFile = path.join(scratch, `pgid-${serial++}`);
  const controller = new AbortController();
  const pending = executeCommand(run, { command: `echo $$ > ${pgidFile}; ${program}`, timeoutMs: budget(60_000), cancelGraceMs: options.graceMs }, controller.signal);
  let pgid = 0;
  await expect.poll(() => (pgid = Number(readFileSync(pgidFile, { encoding: 'utf8', flag: 'a+' }).trim() || 0))).toBeGreaterThan(0);
  await expect.poll(() => groupProcesses(pgid).length).toBeGreaterThanOrEqual(options.processes);
  const cancelledAt = Date.now();
  controller.abort('cancel');
  const outcome: ExecutionOutcome = await pending;
  return { outcome, pgid, tookMs: Date.now() - cancelledAt };
}

describe('cancelling a command run', () => {
  it('sends SIGTERM to the process group; a program that ends on it is cancelled within the grace, its output kept', async () => {
    const { outcome, pgid, tookMs } = await startAndCancel('echo started; sleep 60 & sleep 60 & wait', { graceMs: budget(30_000), processes: 3 });
    expect(outcome).toEqual({ status: 'cancelled', output: 'started\n', error: 'The run was cancelled while the command ran: its process group received SIGTERM and ended within the grace period' });
    expect(tookMs).toBeLessThan(budget(30_000));
    expect(groupProcesses(pgid)).toEqual([]);
  });

  it('sends SIGKILL once the grace period is over to a group that ignores SIGTERM, and leaves no process of it', async () => {
    // The shell reports SIGTERM and carries on; its child ignores SIGTERM altogether.
    const program = `trap 'echo got SIGTERM' TERM; (trap '' TERM; exec sleep 60) & while :; do wait; done`;
    const graceMs = 500;
    const { outcome, pgid, tookMs } = await startAndCancel(program, { graceMs, processes: 2 });
    expect(outcome).toMatchObject({
      status: 'cancelled',
      output: 'got SIGTERM\n',
      error: 'The run was cancelled while the command ran: its process group received SIGTERM, did not end within the 0.5 s grace period (TRIPLINE_RUN_CANCEL_GRACE_SECONDS) and was killed (SIGKILL)',
    });
    expect(tookMs).toBeGreaterThanOrEqual(graceMs);
    expect(groupProcesses(pgid)).toEqual([]);
  });

  it('kills an orphan that ignores SIGTERM after its leader exited, before the run ends', async () => {
    // The background child holds no pipe of the run's, so the output closes when the shell exits on SIGTERM.
    const program = `(trap '' TERM; exec sleep 60) >/dev/null 2>&1 </dev/null & echo started; sleep 60`;
    const graceMs = 500;
    const { outcome, pgid, tookMs } = await startAndCancel(program, { graceMs, processes: 3 });
    expect(outcome).toMatchObject({ status: 'cancelled', output: 'started\n', error: expect.stringMatching(/was killed \(SIGKILL\)$/) });
    expect(tookMs).toBeGreaterThanOrEqual(graceMs);
    expect(groupProcesses(pgid)).toEqual([]);
  });
});

describe('a run still going when the server exits', () => {
  it('has its process group killed in the exit, not left running without its time limit', async () => {
    const pgidFile = path.join(scratch, `pgid-${serial++}`);
    const pending = executeCommand(run, { command: `echo $$ > ${pgidFile}; sleep 300 & sleep 300; wait`, timeoutMs: budget(600_000) });
    let pgid = 0;
    await expect.poll(() => (pgid = Number(readFileSync(pgidFile, { encoding: 'utf8', flag: 'a+' }).trim() || 0))).toBeGreaterThan(0);
    await expect.poll(() => groupProcesses(pgid).length).toBeGreaterThanOrEqual(3);
    // What the process's exit handler does.
    expect(killRunningGroups()).toBe(1);
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: 'failed', error: 'The command was killed by SIGKILL' });
    await expect.poll(() => groupProcesses(pgid)).toEqual([]);
    // Ended runs are let go: nothing is left to kill.
    expect(killRunningGroups()).toBe(0);
  });
});
