// The process's lifecycle, shared between Tripline's server entry (server.ts,
// which owns SIGTERM and SIGINT) and the app inside Next.js (which starts the
// database and the workers, and answers /readyz). The two load this module
// separately (the entry through tsx, the app through Next's bundle), so the
// state lives on globalThis under a registered symbol: one state per process.
//
// No 'server-only' import: the entry runs outside React's server condition.

export type Phase = 'starting' | 'ready' | 'draining' | 'stopped' | 'failed';

/** A step of the shutdown sequence, registered by the part of the app that owns the resource. */
export type ShutdownStep = {
  name: string;
  /** Steps run in ascending stage order; steps of one stage run together. */
  stage: ShutdownStage;
  /** `deadline` is the epoch ms by which the step should be done (the shutdown grace). */
  run: (deadline: number) => Promise<void>;
};

/** Stages of the shutdown sequence, after the entry has stopped taking requests. */
export const shutdownStage = {
  /** Background work: run workers finish or re-queue, timers stop. Runs while HTTP drains. */
  work: 1,
  /** The database closes, once requests and work are done. */
  database: 2,
} as const;
export type ShutdownStage = (typeof shutdownStage)[keyof typeof shutdownStage];

type State = { phase: Phase; reason: string | null; steps: ShutdownStep[] };

const key = Symbol.for('tripline.lifecycle');

function state(): State {
  const holder = globalThis as Record<symbol, State | undefined>;
  holder[key] ??= { phase: 'starting', reason: null, steps: [] };
  return holder[key]!;
}

export function phase(): Phase {
  return state().phase;
}

/** Why the process is not ready (a startup failure), if it said. */
export function phaseReason(): string | null {
  return state().reason;
}

export function setPhase(next: Phase, reason: string | null = null): void {
  const current = state();
  // Once draining, the process never becomes ready again.
  if ((current.phase === 'draining' || current.phase === 'stopped') && (next === 'ready' || next === 'starting')) return;
  current.phase = next;
  current.reason = reason;
}

export function isDraining(): boolean {
  const current = state().phase;
  return current === 'draining' || current === 'stopped';
}

/** Registers a step of the shutdown sequence (replacing an earlier step of the same name). */
export function onShutdown(step: ShutdownStep): void {
  const steps = state().steps;
  const index = steps.findIndex((existing) => existing.name === step.name);
  if (index >= 0) steps[index] = step;
  else steps.push(step);
}

/** How long past its deadline a stage's step may take (its last writes) before the stage goes on without it. */
export const STAGE_OVERRUN_MS = 10_000;

/**
 * Runs the registered steps of one stage together; a failing step is reported, never blocks the
 * others, and a step still going `overrunMs` past the deadline is reported and left behind: a query
 * on a connection to a database that stopped answering (paused, or a host gone without a reset)
 * never returns, and the process must still exit.
 */
export async function runShutdownStage(stage: ShutdownStage, deadline: number, report: (name: string, error: unknown) => void, overrunMs = STAGE_OVERRUN_MS): Promise<void> {
  const steps = state().steps.filter((step) => step.stage === stage);
  await Promise.all(
    steps.map((step) => {
      let timer: NodeJS.Timeout | undefined;
      const overrun = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          report(step.name, new Error(`still going ${overrunMs / 1000} s past the shutdown's deadline: left behind`));
          resolve();
        }, Math.max(0, deadline + overrunMs - Date.now()));
        timer.unref();
      });
      const done = step.run(deadline).catch((error: unknown) => {
        report(step.name, error);
      });
      return Promise.race([done, overrun]).finally(() => clearTimeout(timer));
    }),
  );
}
