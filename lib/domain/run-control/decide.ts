import { DEFAULT_QUEUE, MAX_DEBOUNCED_DELIVERIES, type RunControl } from '@/lib/domain/run-control/config';
import type { ActiveRunStatus, RunStatus } from '@/lib/domain/run-status/statuses';

// What becomes of one group's runs (docs/automations.md, Run control), as a
// pure function of the automation's settings, the group's state, its runs not
// yet ended, and the time: the scheduler (scheduler.ts) calls it while holding
// the group's row lock and writes what it returns. Stages apply in order:
//
//   1. debounce: new deliveries join the burst ('debouncing'); when the burst
//      is due, its latest delivery's row goes on and the others are
//      'debounced' into it;
//   2. throttle (the excess is 'throttled' until its period, in a bounded
//      line) or rate limit (the excess is 'skipped');
//   3. concurrency: at most `limit` runs queued or running; what happens to
//      the rest is `whenFull`.
//
// Within a pass, deliveries are taken one at a time in arrival order, so a
// pass that decides a burst decides it as one that saw each delivery alone
// would have (the oldest waiting is superseded by the next, and so on).

/** Statuses of runs that have not ended: the ones a pass looks at. */
export type ActiveStatus = ActiveRunStatus;
export type DecidedStatus = ActiveStatus | Extract<RunStatus, 'superseded' | 'debounced' | 'skipped' | 'cancelled'>;

/** A run of the group that has not ended, in arrival order. */
export type GroupRun = {
  id: string;
  status: ActiveStatus;
  /** The Delivery row's id (dl_…), what outcomeDeliveryId names. */
  deliveryRowId: string | null;
  /** The sender's delivery ID (the envelope's deliveryId), what a debounced run's envelope lists. */
  deliveryId: string;
  outcomeRunId: string | null;
  notBefore: Date | null;
  cancelRequestedAt: Date | null;
};

export type GroupState = { burstStartedAt: Date | null; burstDueAt: Date | null; windowStartedAt: Date | null; windowRuns: number };

/** A change to one run; `from` is the status it was read with (the write is conditional on it). */
export type RunChange = {
  id: string;
  from: ActiveStatus;
  status: DecidedStatus;
  outcomeRunId?: string | null;
  outcomeDeliveryId?: string | null;
  outcomeDetail?: string | null;
  notBefore?: Date | null;
  /** Set on a run to be stopped (cancel-running): the worker holding it stops it. */
  cancelRequestedAt?: Date;
  /** The debounced run's envelope lists these deliveries. */
  deliveryIds?: string[];
  /** An outcome that ends the row (superseded, debounced, skipped, cancelled). */
  finished?: boolean;
};

export type Decision = { changes: RunChange[]; state: GroupState; dueAt: Date | null };

const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
const seconds = (value: number) => plural(value, 'second');
const at = (ms: number) => new Date(ms).toISOString();

export function decide(control: RunControl, state: GroupState, runs: readonly GroupRun[], now: Date): Decision {
  const nowMs = now.getTime();
  const changes = new Map<string, RunChange>();
  const statusOf = (run: GroupRun) => changes.get(run.id)?.status ?? run.status;
  const change = (run: GroupRun, patch: Omit<RunChange, 'id' | 'from'>) => {
    changes.set(run.id, { ...changes.get(run.id), id: run.id, from: run.status, ...patch });
  };
  const end = (run: GroupRun, status: 'superseded' | 'debounced' | 'skipped' | 'cancelled', patch: Omit<RunChange, 'id' | 'from' | 'status' | 'finished'>) =>
    change(run, { status, finished: true, notBefore: null, ...patch });
  const next: GroupState = { ...state };
  const due: number[] = [];
  const pending = runs.filter((run) => run.status === 'pending');

  // 1. Debounce. Without it (turned off while a burst waited), the burst's rows go on at once.
  let candidates: GroupRun[] = runs.filter((run) => run.status === 'pending' || run.status === 'debouncing');
  const debounce = control.debounce;
  if (!debounce) {
    next.burstStartedAt = null;
    next.burstDueAt = null;
  }
  if (debounce) {
    candidates = [];
    const burst = runs.filter((run) => run.status === 'debouncing' || run.status === 'pending');
    if (burst.length === 0) {
      next.burstStartedAt = null;
      next.burstDueAt = null;
    } else {
      if (pending.length > 0 || next.burstDueAt === null) {
        const started = (next.burstStartedAt ??= now).getTime();
        const cap = debounce.maxWaitSeconds === undefined ? Infinity : started + debounce.maxWaitSeconds * 1000;
        next.burstDueAt = new Date(Math.min(nowMs + debounce.periodSeconds * 1000, cap));
      }
      const dueMs = next.burstDueAt!.getTime();
      // A run stands for at most MAX_DEBOUNCED_DELIVERIES: a longer burst (its deliveries arrived while no
      // scheduler ran) goes on in runs of that many, oldest first, each with its last delivery's payload.
      let rest = burst;
      while (rest.length >= MAX_DEBOUNCED_DELIVERIES || (rest.length > 0 && nowMs >= dueMs)) {
        const chunk = rest.slice(0, MAX_DEBOUNCED_DELIVERIES);
        rest = rest.slice(chunk.length);
        const run = chunk[chunk.length - 1]!;
        for (const other of chunk.slice(0, -1)) end(other, 'debounced', { outcomeRunId: run.id });
        change(run, { status: run.status, deliveryIds: chunk.map((member) => member.deliveryId) });
        candidates.push(run);
      }
      if (rest.length === 0) {
        next.burstStartedAt = null;
        next.burstDueAt = null;
      } else {
        if (rest.length < burst.length) {
          // What is left of a burst that went on is a burst of its own, from now.
          next.burstStartedAt = now;
          const cap = debounce.maxWaitSeconds === undefined ? Infinity : nowMs + debounce.maxWaitSeconds * 1000;
          next.burstDueAt = new Date(Math.min(nowMs + debounce.periodSeconds * 1000, cap));
        }
        const restDueMs = next.burstDueAt!.getTime();
        for (const run of rest) if (run.status === 'pending' || run.notBefore?.getTime() !== restDueMs) change(run, { status: 'debouncing', notBefore: next.burstDueAt });
        due.push(restDueMs);
      }
    }
  }

  // 2. Throttle or rate limit: at most `limit` runs start in a period, which opens with the first run after the last period ended.
  let ready = [...runs.filter((run) => run.status === 'throttled'), ...candidates];
  const pace: { limit: number; periodSeconds: number } | undefined = control.throttle ?? control.rateLimit;
  if (pace) {
    const periodMs = pace.periodSeconds * 1000;
    const admit = (): boolean => {
      if (next.windowStartedAt === null || nowMs >= next.windowStartedAt.getTime() + periodMs) {
        next.windowStartedAt = now;
        next.windowRuns = 1;
        return true;
      }
      if (next.windowRuns >= pace.limit) return false;
      next.windowRuns += 1;
      return true;
    };
    const periodEnd = () => next.windowStartedAt!.getTime() + periodMs;
    const rule = `${control.throttle ? 'throttle' : 'rate limit'}: ${plural(pace.limit, 'run')} per ${seconds(pace.periodSeconds)} for this key`;
    ready = [];
    if (control.throttle) {
      const queueLimit = control.throttle.queueLimit ?? DEFAULT_QUEUE;
      let place = 0;
      for (const run of [...runs.filter((candidate) => candidate.status === 'throttled'), ...candidates]) {
        if (admit()) {
          ready.push(run);
        } else if (run.status === 'throttled' || place < queueLimit) {
          // Its turn: the periods ahead of it, each starting `limit` runs.
          const startsAt = periodEnd() + Math.floor(place / pace.limit) * periodMs;
          place += 1;
          if (statusOf(run) !== 'throttled' || run.notBefore?.getTime() !== startsAt) change(run, { status: 'throttled', notBefore: new Date(startsAt), outcomeDetail: `${rule}; starts at ${at(startsAt)}` });
        } else {
          end(run, 'skipped', { outcomeDetail: `${rule}, and ${plural(queueLimit, 'delivery', 'deliveries')} already wait their turn (the throttle's queue limit)` });
        }
      }
      if (place > 0) due.push(periodEnd());
    } else {
      // Runs a throttle left in line (the setting changed to a rate limit since) are admitted or skipped with the rest.
      for (const run of [...runs.filter((candidate) => candidate.status === 'throttled'), ...candidates]) {
        if (admit()) ready.push(run);
        else end(run, 'skipped', { outcomeDetail: `${rule}; the next can start at ${at(periodEnd())}` });
      }
    }
  }

  // 3. Concurrency.
  const inProgress = runs.filter((run) => run.status === 'queued' || run.status === 'running');
  const line = [...runs.filter((run) => run.status === 'waiting'), ...ready];
  const start = (run: GroupRun) => {
    change(run, { status: 'queued', outcomeRunId: null, outcomeDetail: null, notBefore: null });
    inProgress.push(run);
  };
  const concurrency = control.concurrency;
  if (!concurrency) {
    line.forEach(start);
  } else {
    const { limit, whenFull } = concurrency;
    const free = () => limit - inProgress.length;
    const waits: GroupRun[] = [];
    const wait = (run: GroupRun) => {
      waits.push(run);
      // Behind the oldest run in progress: the one most likely to end first.
      const behind = inProgress[0]?.id ?? null;
      if (statusOf(run) !== 'waiting' || run.outcomeRunId !== behind) change(run, { status: 'waiting', outcomeRunId: behind, outcomeDetail: null, notBefore: null });
    };
    const cancelling = new Set(inProgress.filter((run) => run.cancelRequestedAt !== null).map((run) => run.id));
    const queueLimit = concurrency.queueLimit ?? DEFAULT_QUEUE;
    for (const run of line) {
      if (free() > 0) {
        start(run);
        continue;
      }
      switch (whenFull) {
        case 'skip':
          if (run.status === 'waiting') wait(run);
          else end(run, 'skipped', { outcomeDetail: `the group is full: ${plural(limit, 'run')} in progress for this key (concurrency limit ${limit})` });
          break;
        case 'queue-all':
          if (run.status === 'waiting' || waits.length < queueLimit) wait(run);
          else end(run, 'skipped', { outcomeDetail: `the group is full and ${plural(queueLimit, 'delivery', 'deliveries')} already wait (the queue limit for this key)` });
          break;
        case 'queue-newest':
          wait(run);
          break;
        case 'cancel-running': {
          const victim = run.status === 'waiting' ? undefined : inProgress.find((candidate) => !cancelling.has(candidate.id));
          if (victim) {
            cancelling.add(victim.id);
            const by = { outcomeDeliveryId: run.deliveryRowId, cancelRequestedAt: now };
            if (statusOf(victim) === 'running') {
              change(victim, { status: 'running', ...by });
            } else {
              // Not claimed yet: nothing to stop, so it ends here and frees its slot at once.
              end(victim, 'cancelled', by);
              inProgress.splice(inProgress.indexOf(victim), 1);
            }
          }
          if (free() > 0) start(run);
          else wait(run);
          break;
        }
      }
    }
    // queue-newest keeps the newest waiting delivery; cancel-running one per slot being freed. The older ones are superseded by the next.
    const keep = whenFull === 'queue-newest' ? 1 : whenFull === 'cancel-running' ? Math.max(1, inProgress.filter((run) => cancelling.has(run.id)).length) : Infinity;
    for (let i = 0; i < waits.length - keep; i++) end(waits[i]!, 'superseded', { outcomeDeliveryId: waits[i + 1]!.deliveryRowId, outcomeRunId: null });
  }

  return { changes: [...changes.values()].filter(isChange), state: next, dueAt: due.length ? new Date(Math.min(...due)) : null };
}

/** A change that changes something: a run read as waiting that stays so, behind the same run, is not one. */
function isChange(change: RunChange): boolean {
  return change.status !== change.from || Object.keys(change).some((key) => key !== 'id' && key !== 'from' && key !== 'status');
}
