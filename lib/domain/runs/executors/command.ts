import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { composedPrompt, PAYLOAD_FILE_NAME } from '@/lib/domain/runs/envelope';
import { clip, type ClaimedRun, type ExecutionOutcome } from '@/lib/domain/runs/executors/types';
import { currentTraceparent } from '@/lib/platform/tracing';

// The command executor: the operator's program runs in a fresh working
// directory that holds the run's attachments (event-payload.json), with the
// composed prompt (prompt + envelope) on stdin. It runs through /bin/sh so
// operators can write an ordinary command line (the command is theirs; no
// delivery data is ever put into it). Its output (stdout and stderr,
// interleaved as produced) is kept; exit code 0 is success. Past the time
// limit the whole process group is killed.
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

export type CommandConfig = { command: string; timeoutMs: number; passEnv?: readonly string[]; workDir?: string };

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

export async function executeCommand(run: ClaimedRun, config: CommandConfig, cancel?: AbortSignal): Promise<ExecutionOutcome> {
  const parent = config.workDir ?? os.tmpdir();
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(parent, 'tripline-run-'));
  try {
    for (const attachment of run.attachments) {
      await writeFile(path.join(dir, path.basename(attachment.name)), attachment.content, 'utf8');
    }
    return await runProgram(run, config, dir, cancel);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => (ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });

function runProgram(run: ClaimedRun, config: CommandConfig, dir: string, cancel?: AbortSignal): Promise<ExecutionOutcome> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', config.command], {
      cwd: dir,
      env: childEnv(run, dir, config.passEnv) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let timedOut = false;
    let cancelled = false;
    const append = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // Keep memory bounded for chatty programs: twice the stored size, then cut.
      if (output.length > 256 * 1024) output = output.slice(-128 * 1024);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, config.timeoutMs);
    // The server is shutting down and its grace period is over.
    const onCancel = () => {
      cancelled = true;
      killGroup();
    };
    if (cancel?.aborted) onCancel();
    else cancel?.addEventListener('abort', onCancel, { once: true });
    child.stdin.on('error', () => undefined); // a program that ignores stdin may close it early
    child.stdin.end(composedPrompt(run.prompt, run.envelope));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: 'failed', output: null, error: `The command could not start: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
      const kept = clip(output);
      if (cancelled) {
        resolve({ status: 'failed', output: kept, error: 'The server shut down and its grace period (TRIPLINE_SHUTDOWN_GRACE_SECONDS) ended before the command finished, so it was stopped' });
      } else if (timedOut) {
        resolve({ status: 'failed', output: kept, error: `The command ran longer than ${seconds(config.timeoutMs)} s and was stopped` });
      } else if (code === 0) {
        resolve({ status: 'succeeded', output: kept });
      } else {
        resolve({ status: 'failed', output: kept, error: signal ? `The command was killed by ${signal}` : `The command exited with code ${code}` });
      }
    });
  });
}
