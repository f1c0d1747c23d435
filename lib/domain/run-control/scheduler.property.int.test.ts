import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, setDatabase, type Database } from '@/lib/platform/db';
import type { RunControlInput } from '@/lib/domain/run-control/config';
import { forgetIdleGroups, schedulePass } from '@/lib/domain/run-control/scheduler';
import { testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { arrive, claim, controlledAutomation, finish, runControlDatabase, runsOf, type Place } from '@/tests/support/run-control';
import { budget } from '@/scripts/speed.mjs';

// The scheduler's invariants (issue 46, Done means) over random histories:
// deliveries on a few keys at random times, workers that claim and end runs
// after random durations, and scheduler instances that restart. On
// PostgreSQL two schedulers, each on its own connections, decide at the same
// moments, as two instances would. Invariants:
//   - never more than `limit` runs queued or running per key;
//   - never more than `limit` runs started per rate limit period per key;
//   - every matched delivery ends in exactly one outcome: one row per
//     delivery, in a final status, once the history has settled;
//   - under queue-newest and debounce, the last delivery of each key runs.
// Meanwhile idle groups are trimmed (but under a rate limit, whose period a
// trimmed group forgets): a pending run is decided even if its group went.
// docs/decisions/0112 shows it failing once the group lock is removed.

// Histories per mode: PostgreSQL's two instances are where the races are; PGlite is one connection.
const RUNS = { postgres: 8, pglite: 4 };
const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const FINAL = new Set(['succeeded', 'failed', 'superseded', 'debounced', 'skipped', 'cancelled']);

type Mode = { name: string; control: RunControlInput; limit: number; lastRuns: boolean; rate?: { limit: number; periodSeconds: number } };
const MODES: Mode[] = [
  { name: 'queue-newest', control: { key: 'k', concurrency: { limit: 1, whenFull: 'queue-newest' } }, limit: 1, lastRuns: true },
  { name: 'queue-newest, 2 at once', control: { key: 'k', concurrency: { limit: 2, whenFull: 'queue-newest' } }, limit: 2, lastRuns: true },
  { name: 'queue-all', control: { key: 'k', concurrency: { limit: 1, whenFull: 'queue-all', queueLimit: 2 } }, limit: 1, lastRuns: false },
  { name: 'cancel-running', control: { key: 'k', concurrency: { limit: 1, whenFull: 'cancel-running' } }, limit: 1, lastRuns: false },
  { name: 'skip', control: { key: 'k', concurrency: { limit: 1, whenFull: 'skip' } }, limit: 1, lastRuns: false },
  { name: 'debounce', control: { key: 'k', debounce: { periodSeconds: 2, maxWaitSeconds: 5 }, concurrency: {} }, limit: 1, lastRuns: true },
  {
    name: 'rate limit',
    control: { key: 'k', rateLimit: { limit: 2, periodSeconds: 10 }, concurrency: { limit: 2, whenFull: 'queue-all' } },
    limit: 2,
    lastRuns: false,
    rate: { limit: 2, periodSeconds: 10 },
  },
];

type Step =
  | { kind: 'arrive'; key: number }
  | { kind: 'tick'; seconds: number }
  | { kind: 'claim' }
  | { kind: 'finish'; pick: number }
  | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('arrive' as const), key: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), seconds: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
);

describe.each(testDatabaseKinds())('run control scheduler property on %s', (kind) => {
  let database: TestDatabase;
  let place: Place;
  // The second instance's connections (PostgreSQL only; PGlite is one connection, one process).
  let other: Database | undefined;

  beforeAll(async () => {
    ({ database, place } = await runControlDatabase(kind, 'rcp'));
  });
  afterAll(async () => {
    await other?.close();
    setDatabase(undefined);
    await database?.drop();
  });

  const instance = () => (database.url ? openDatabase({ kind: 'postgres', url: database.url }, { poolSize: 2 }) : undefined);

  /**
   * Both instances decide at `now`, at the same moment. A pass of an instance that is stopped meanwhile may fail: a crash.
   * With `trim`, the second instance (or the one, on PGlite) also forgets every idle group meanwhile, as if each automation
   * were past its bound: a delivery being recorded at that moment may lose its group, which a pass makes again (docs/decisions/0115).
   */
  async function passes(now: number, trim: boolean): Promise<void> {
    const second = other;
    const crashed = (error: unknown) => {
      if (!second?.closed) throw error;
    };
    await Promise.all([
      schedulePass(new Date(now), database.prisma),
      ...(second ? [schedulePass(new Date(now), second.prisma).catch(crashed)] : []),
      ...(trim ? [forgetIdleGroups(second?.prisma ?? database.prisma, 0).catch(crashed)] : []),
    ]);
  }

  async function history(mode: Mode, steps: Step[]): Promise<void> {
    const automationId = await controlledAutomation(database, place, mode.control);
    other ??= instance();
    let now = T0;
    const started = new Map<string, number>();
    const check = async () => {
      const rows = await runsOf(database, automationId);
      const inProgress = new Map<string, number>();
      for (const row of rows) {
        if (row.status === 'queued' || row.status === 'running') inProgress.set(row.controlKey!, (inProgress.get(row.controlKey!) ?? 0) + 1);
        if ((row.status === 'queued' || row.status === 'running' || row.status === 'succeeded') && !started.has(row.id)) started.set(row.id, now);
      }
      for (const [key, count] of inProgress) expect(count, `runs in progress for key ${key}`).toBeLessThanOrEqual(mode.limit);
      return rows;
    };
    // A forgotten group forgets its rate limit period (by design, past the bound only): no trim under a rate limit.
    const trim = !mode.rate;
    const afterStep = async () => {
      await passes(now, trim);
      await check();
    };
    const act = async (next: Step) => {
      switch (next.kind) {
        case 'arrive':
          await arrive(place, automationId, mode.control, { k: next.key });
          break;
        case 'tick':
          now += next.seconds * 1000;
          break;
        case 'claim': {
          const queued = (await runsOf(database, automationId)).find((row) => row.status === 'queued');
          if (queued) await claim(queued.id);
          break;
        }
        case 'finish': {
          const running = (await runsOf(database, automationId)).filter((row) => row.status === 'running');
          if (running.length) await finish(running[next.pick % running.length]!.id);
          break;
        }
        case 'restart': {
          // All the scheduler knows is in the database: a new instance, with new connections, takes over from one
          // stopped in the middle of its pass (PostgreSQL rolls back what it had not committed).
          const stopped = other;
          other = instance();
          await stopped?.close();
          break;
        }
      }
    };
    for (const next of steps) {
      // Deliveries arrive and runs end while both instances decide, then they decide once more.
      await Promise.all([act(next), passes(now, trim)]);
      await afterStep();
    }
    // Settle: workers run everything, time passes every debounce and period.
    for (let round = 0; round < 40; round++) {
      const rows = await check();
      if (rows.every((row) => FINAL.has(row.status))) break;
      for (const row of rows.filter((candidate) => candidate.status === 'running')) await finish(row.id);
      for (const row of rows.filter((candidate) => candidate.status === 'queued')) await claim(row.id);
      now += 3_000;
      await afterStep();
    }
    const rows = await check();
    const deliveries = await database.prisma.delivery.count({ where: { runs: { some: { automationId } } } });
    const arrivals = steps.filter((candidate) => candidate.kind === 'arrive').length;
    expect(rows).toHaveLength(arrivals);
    expect(deliveries).toBe(arrivals);
    for (const row of rows) expect(FINAL.has(row.status), `run ${row.id} ended ${row.status}`).toBe(true);
    if (mode.lastRuns) {
      const last = new Map(rows.map((row) => [row.controlKey, row]));
      for (const [key, row] of last) expect(row.status, `the last delivery of key ${key}`).toBe('succeeded');
    }
    for (const row of rows.filter((candidate) => candidate.status === 'debounced')) {
      const run = rows.find((candidate) => candidate.id === row.outcomeRunId);
      expect(run?.envelope.deliveryIds).toContain(row.envelope.deliveryId);
    }
    if (mode.rate) {
      const { limit, periodSeconds } = mode.rate;
      for (const key of new Set(rows.map((row) => row.controlKey))) {
        const times = rows.filter((row) => row.controlKey === key && started.has(row.id)).map((row) => started.get(row.id)!);
        times.sort((a, b) => a - b);
        // The periods as the scheduler opens them: each with the first run after the last one ended.
        for (let i = 0; i < times.length; ) {
          const end = times[i]! + periodSeconds * 1000;
          let j = i;
          while (j < times.length && times[j]! < end) j++;
          expect(j - i, `runs started in the period from ${new Date(times[i]!).toISOString()} for key ${key}`).toBeLessThanOrEqual(limit);
          i = j;
        }
      }
    }
  }

  it.each(MODES)('holds its invariants under $name', async (mode) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 16 }), (steps) => history(mode, steps)),
      { numRuns: RUNS[kind], endOnFailure: true },
    );
  }, budget(120_000));
});
