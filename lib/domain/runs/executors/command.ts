import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { composedPrompt, PAYLOAD_FILE_NAME } from '@/lib/domain/runs/envelope';
import { groupAlive, signalGroup, trackGroup } from '@/lib/domain/runs/executors/process-group';
import { clip, stopReason, type ClaimedRun, type ExecutionOutcome, type StopReason } from '@/lib/domain/runs/executors/types';
import { currentTraceparent } from '@/lib/platform/tracing';

// The command executor: the operator's program runs in a fresh working
// directory that holds the run's attachments (event-payload.json), with the
// composed prompt (prompt + envelope) on stdin. It runs through /bin/sh so
// operators can write an ordinary command line (the command is theirs; no
// delivery data is ever put into it). Its output (stdout and stderr,
// interleaved as produced) is kept; exit code 0 is success.
//
// The program leads a process group of its own. It is stopped as a group, as
// Kubernetes and CI runners stop a job: past the time limit, or when the
// run's cancel is requested, SIGTERM to the group, so an agent can save its
// work and end its own children; SIGKILL to the group after the grace period
// (TRIPLINE_RUN_CANCEL_GRACE_SECONDS). The run ends only once no process of
// the group is left, so no orphan outlives a stopped run. At shutdown the
// server's own grace period has already been spent waiting, and the server
// may be killed any moment (taking no grace timer with it), so the group is
// killed at once.
//
// The child gets an allowlisted environment, never the server's: PATH, LANG
// and TZ as the server has them, HOME set to the run's own folder, the names
// the operator lists in TRIPLINE_RUN_ENV (an agent's API key, say), and the
// run's own RUN_ID, RUN_AUTOMATION_ID, RUN_PAYLOAD_FILE, RUN_WORKER_ID and
// RUN_EVENT_TYPE (when the delivery has a type). A run's program acts on
// untrusted payloads: it has no business holding the database password, the secrets key, the auth
// secret, an SSH agent socket or whatever else the server was started with.
// The folder lives outside the data folder (lib/platform/env.ts refuses a work folder
// inside it) and is removed afterwards. This is not isolation: the program
// still runs as the server's OS user (docs/security.md).

const PASSED_THROUGH = ['PATH', 'LANG', 'TZ'];

export type CommandConfig = { command: string; timeoutMs: number; passEnv?: readonly string[]; workDir?: string; cancelGraceMs?: number };

/** Between SIGTERM and SIGKILL, unless TRIPLINE_RUN_CANCEL_GRACE_SECONDS says otherwise. */
export const DEFAULT_CANCEL_GRACE_MS = 10_000;
// How long to wait for the group to be gone after SIGKILL, which cannot be
// ignored: only a process stuck in the kernel (uninterruptible I/O) outlives it.
const KILLED_WAIT_MS = 2_000;
const GROUP_POLL_MS = 50;

export function childEnv(run: Pick<ClaimedRun, 'id' | 'automationId' | 'worker' | 'envelope'>, dir: string, passEnv: readonly string[] = [], source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...PASSED_THROUGH, ...passEnv]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  env.HOME = dir;
  env.RUN_ID = run.id;
  env.RUN_AUTOMATION_ID = run.automationId;
  env.RUN_PAYLOAD_FILE = path.join(dir, PAYLOAD_FILE_NAME);
  env.RUN_WORKER_ID = run.worker;
  // The delivery's event type; unset when its sender names none.
  const eventType = run.envelope.eventType;
  if (eventType) env.RUN_EVENT_TYPE = eventType;
  // With traces on, the executor's span: the program's own telemetry joins the delivery's trace.
  const traceparent = currentTraceparent();
  if (traceparent) env.TRACEPARENT = traceparent;
  return env;
}

/**
 * Runs the command for a claimed run. `signal` stops it (SIGTERM, SIGKILL
 * after the grace; its reason says why); `shutdown`, when the worker's
 * shutdown grace is over, kills it at once, even during a cancel's grace.
 */
export async function executeCommand(run: ClaimedRun, config: CommandConfig, signal?: AbortSignal, shutdown?: AbortSignal): Promise<ExecutionOutcome> {
  const parent = config.workDir ?? os.tmpdir();
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(parent, 'tripline-run-'));
  try {
    for (const attachment of run.attachments) {
      await writeFile(path.join(dir, path.basename(attachment.name)), attachment.content, 'utf8');
    }
    return await runProgram(run, config, dir, signal, shutdown);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => (ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });

function runProgram(run: ClaimedRun, config: CommandConfig, dir: string, signal?: AbortSignal, shutdown?: AbortSignal): Promise<ExecutionOutcome> {
  const graceMs = config.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', config.command], {
      cwd: dir,
      env: childEnv(run, dir, config.passEnv) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const append = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // Keep memory bounded for chatty programs: twice the stored size, then cut.
      if (output.length > 256 * 1024) output = output.slice(-128 * 1024);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    // Killed with this process if it exits first (process-group.ts).
    const untrack = child.pid ? trackGroup(child.pid) : () => false;

    // Why the program is being stopped (Stopped, below).
    let stopped: Stopped | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (by: Stopped['killedBy'] = 'grace') => {
      clearTimeout(killTimer);
      if (stopped && stopped.killedAt === undefined) Object.assign(stopped, { killedAt: Date.now(), killedBy: by });
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
    };
    const stop = (why: 'timeout' | StopReason) => {
      if (stopped) {
        // A shutdown during a cancel's or time limit's grace does not wait for it.
        if (why === 'shutdown') kill('shutdown');
        return;
      }
      stopped = { why };
      if (why === 'shutdown' || !child.pid) return kill('shutdown');
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(kill, graceMs);
    };
    const timer = setTimeout(() => stop('timeout'), config.timeoutMs);
    const onAbort = () => stop(stopReason(signal!));
    const onShutdown = () => stop('shutdown');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    if (shutdown?.aborted) onShutdown();
    else shutdown?.addEventListener('abort', onShutdown, { once: true });

    child.stdin.on('error', () => undefined); // a program that ignores stdin may close it early
    child.stdin.end(composedPrompt(run.prompt, run.envelope));
    child.on('error', (error) => {
      clearTimeout(timer);
      untrack();
      resolve({ status: 'failed', output: null, error: `The command could not start: ${error.message}` });
    });
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      shutdown?.removeEventListener('abort', onShutdown);
      const kept = clip(output);
      if (!stopped) {
        untrack();
        resolve(code === 0 ? { status: 'succeeded', output: kept } : { status: 'failed', output: kept, error: exitSignal ? `The command was killed by ${exitSignal}` : `The command exited with code ${code}` });
        return;
      }
      // The leader is gone; a process it started may still be in its grace.
      void untilGroupGone(child.pid!, stopped).then(() => {
        // Gone within the grace: nothing is left to kill, and the group's ID may be reused.
        clearTimeout(killTimer);
        untrack();
        resolve(stoppedOutcome(stopped!, kept, config, graceMs));
      });
    });
  });
}

/** Waits until no process of the group lives: through the grace, then a bounded wait after SIGKILL. */
async function untilGroupGone(pgid: number, stopped: Stopped): Promise<void> {
  while (await groupAlive(pgid)) {
    if (stopped.killedAt !== undefined && Date.now() - stopped.killedAt > KILLED_WAIT_MS) return;
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
}

/** Why the program is being stopped, and when and why it was killed (SIGKILL): its grace ran out, or the server's shutdown did not wait for it. */
type Stopped = { why: 'timeout' | StopReason; killedAt?: number; killedBy?: 'grace' | 'shutdown' };

function stoppedOutcome(stopped: Stopped, output: string, config: CommandConfig, graceMs: number): ExecutionOutcome {
  const how =
    stopped.killedAt === undefined
      ? 'its process group received SIGTERM and ended within the grace period'
      : stopped.why === 'shutdown'
        ? 'its process group was killed (SIGKILL)'
        : stopped.killedBy === 'shutdown'
          ? 'its process group received SIGTERM, and was killed (SIGKILL) when the server shut down during its grace period'
          : `its process group received SIGTERM, did not end within the ${seconds(graceMs)} s grace period (TRIPLINE_RUN_CANCEL_GRACE_SECONDS) and was killed (SIGKILL)`;
  switch (stopped.why) {
    case 'cancel':
      return { status: 'cancelled', output, error: `The run was cancelled while the command ran: ${how}` };
    case 'timeout':
      return { status: 'failed', output, error: `The command ran longer than ${seconds(config.timeoutMs)} s and was stopped: ${how}` };
    default:
      return { status: 'failed', output, error: `The server shut down and its grace period (TRIPLINE_SHUTDOWN_GRACE_SECONDS) ended before the command finished, so it was stopped: ${how}` };
  }
}
