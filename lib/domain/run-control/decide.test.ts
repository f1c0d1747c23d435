import { describe, expect, it } from 'vitest';
import { runControlSchema, type RunControlInput } from '@/lib/domain/run-control/config';
import { decide, type ActiveStatus, type GroupRun, type GroupState } from '@/lib/domain/run-control/decide';

// The decision alone, without a database: each delivery taken in arrival
// order, as if a pass had seen it alone.

const NOW = new Date('2026-11-28T12:00:00.000Z');
const EMPTY: GroupState = { burstStartedAt: null, burstDueAt: null, windowStartedAt: null, windowRuns: 0 };
const run = (n: number, status: ActiveStatus = 'pending', extra: Partial<GroupRun> = {}): GroupRun => ({
  id: `run_${n}`,
  status,
  deliveryRowId: `dl_${n}`,
  deliveryId: `d${n}`,
  outcomeRunId: null,
  notBefore: null,
  cancelRequestedAt: null,
  ...extra,
});
const decided = (control: RunControlInput, runs: GroupRun[], state = EMPTY, now = NOW) => decide(runControlSchema.parse(control), state, runs, now);
const statuses = (decision: ReturnType<typeof decide>, runs: GroupRun[]) =>
  runs.map((candidate) => decision.changes.find((change) => change.id === candidate.id)?.status ?? candidate.status);

describe('decide', () => {
  it('queue-newest: a burst decided at once ends as if it had come one at a time', () => {
    const runs = [run(1), run(2), run(3)];
    const decision = decided({ concurrency: {} }, runs);
    expect(statuses(decision, runs)).toEqual(['queued', 'superseded', 'waiting']);
    expect(decision.changes.find((change) => change.id === 'run_2')).toMatchObject({ outcomeDeliveryId: 'dl_3', finished: true });
    expect(decision.changes.find((change) => change.id === 'run_3')).toMatchObject({ outcomeRunId: 'run_1' });
  });

  it('changes nothing for a run already waiting behind the same run', () => {
    const runs = [run(1, 'running'), run(2, 'waiting', { outcomeRunId: 'run_1' })];
    expect(decided({ concurrency: {} }, runs).changes).toEqual([]);
  });

  it('cancel-running: asks a running run to stop, and never starts beside it', () => {
    const runs = [run(1, 'running'), run(2)];
    const decision = decided({ concurrency: { whenFull: 'cancel-running' } }, runs);
    expect(decision.changes).toEqual([
      { id: 'run_1', from: 'running', status: 'running', outcomeDeliveryId: 'dl_2', cancelRequestedAt: NOW },
      { id: 'run_2', from: 'pending', status: 'waiting', outcomeRunId: 'run_1', outcomeDetail: null, notBefore: null },
    ]);
  });

  it('debounce: due at the period after the last delivery, capped by the maximum wait from the burst\'s first', () => {
    const started = new Date(NOW.getTime() - 50_000);
    const decision = decided({ debounce: { periodSeconds: 30, maxWaitSeconds: 60 } }, [run(1, 'debouncing'), run(2)], { ...EMPTY, burstStartedAt: started, burstDueAt: NOW });
    // 30 s after now would pass the 60 s from the burst's start.
    expect(decision.dueAt).toEqual(new Date(started.getTime() + 60_000));
    expect(decision.state.burstDueAt).toEqual(decision.dueAt);
  });

  it('a period opens with the first run after the last one ended', () => {
    const control = { rateLimit: { limit: 2, periodSeconds: 60 } };
    const open = decided(control, [run(1), run(2), run(3)]);
    expect(open.state).toMatchObject({ windowStartedAt: NOW, windowRuns: 2 });
    const later = new Date(NOW.getTime() + 60_000);
    const next = decided(control, [run(4)], open.state, later);
    expect(next.state).toMatchObject({ windowStartedAt: later, windowRuns: 1 });
  });

  it('a throttle changed to a rate limit: the runs it left in line are admitted or skipped, none left waiting', () => {
    const runs = [run(1, 'throttled', { notBefore: NOW }), run(2, 'throttled', { notBefore: NOW }), run(3)];
    const decision = decided({ rateLimit: { limit: 1, periodSeconds: 60 } }, runs);
    expect(statuses(decision, runs)).toEqual(['queued', 'skipped', 'skipped']);
    expect(decision.dueAt).toBeNull();
  });

  it('debounce: a burst of more than 1,000 deliveries goes on in runs of 1,000, each listing its own', () => {
    const runs = Array.from({ length: 2_500 }, (_, n) => run(n + 1, 'debouncing'));
    const started = new Date(NOW.getTime() - 5_000);
    // Not due yet: two runs of 1,000 go on, and the last 500 are a burst of their own, from now.
    const early = decided({ debounce: { periodSeconds: 30 } }, runs, { ...EMPTY, burstStartedAt: started, burstDueAt: new Date(NOW.getTime() + 25_000) });
    const lists = early.changes.filter((change) => change.deliveryIds).map((change) => [change.id, change.deliveryIds!.length, change.deliveryIds![0]]);
    expect(lists).toEqual([
      ['run_1000', 1_000, 'd1'],
      ['run_2000', 1_000, 'd1001'],
    ]);
    expect(early.changes.filter((change) => change.status === 'debounced')).toHaveLength(1_998);
    expect(early.state).toMatchObject({ burstStartedAt: NOW, burstDueAt: new Date(NOW.getTime() + 30_000) });
    expect(statuses(early, runs).slice(2_000).every((status) => status === 'debouncing')).toBe(true);
    // Due: the last 500 go on as one run.
    const due = decided({ debounce: { periodSeconds: 30 } }, runs.slice(2_000), early.state, new Date(NOW.getTime() + 30_000));
    expect(due.changes.filter((change) => change.deliveryIds).map((change) => [change.id, change.deliveryIds!.length])).toEqual([['run_2500', 500]]);
    expect(due.state.burstDueAt).toBeNull();
  });

  it('lets every held run go on once run control is off', () => {
    const runs = [run(1, 'debouncing'), run(2, 'throttled'), run(3, 'waiting'), run(4)];
    const decision = decide({} as never, { ...EMPTY, burstDueAt: NOW }, runs, NOW);
    expect(statuses(decision, runs)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(decision.state.burstDueAt).toBeNull();
  });
});
