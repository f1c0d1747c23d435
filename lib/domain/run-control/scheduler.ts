import 'server-only';
import { prisma, type Db, type Tx } from '@/lib/platform/db';
import { metrics } from '@/lib/platform/metrics';
import { MAX_DEBOUNCED_DELIVERIES, MAX_GROUPS_PER_AUTOMATION, runControlSchema, type RunControl } from '@/lib/domain/run-control/config';
import { decide, type ActiveStatus, type GroupRun, type GroupState, type RunChange } from '@/lib/domain/run-control/decide';
import { ACTIVE_RUN_STATUSES, sqlStatusList } from '@/lib/domain/run-status/statuses';
import { schedulers, type Scheduler } from '@/lib/domain/run-control/wake';

// Run control's scheduler (docs/automations.md, Run control; docs/decisions/0101).
// Every instance runs one. A pass claims groups (RunGroup rows) that have a
// pending run (a delivery arrived), are dirty (a run ended, a cancel) or are
// due (a debounce or throttle period ends) under a transaction-scoped advisory lock taken without
// waiting (groupLock), so two instances never decide one group at once, and
// decides each group's runs in the pass's transaction (decide.ts). A group
// with a pending run and no row yet (a delivery's first in its group) gets its
// row in a short statement of its own, and the pass is run again. The
// group's row is locked only by the pass's last statement, which writes its
// state and clears `dirty` unless a writer marked the group again meanwhile
// (its `changes` moved): the workers, which mark groups dirty, never wait for
// a whole pass (docs/decisions/0112), and the ingress never touches a
// group's row at all (docs/decisions/0115). The pass never waits for
// a lock: it skips groups another pass holds, and a group whose runs it cannot
// all lock (a worker is ending one this moment) stays dirty for the next
// pass. So it cannot deadlock with the ingress or the workers. A pass is four
// statements in its transaction (docs/decisions/0122): the claim, the groups
// with the runs they list, those runs locked, and the writes.
//
// Everything it knows is in the database: a restarted instance finds the
// pending, debouncing, throttled and waiting rows, and their groups dirty or
// due, where the last one left them.

/** Groups claimed per pass of each kind: those with pending runs, as many dirty ones, as many due ones. */
export const PASS_GROUPS = 50;
/**
 * Pending runs a pass reads per group, oldest first; a group with more stays dirty, and the next
 * pass follows at once. The rest of a group's unfinished runs are bounded by its settings (its
 * concurrency limit, and queue limits of 1,000 at most), but pending runs are not: where no
 * scheduler ran for an hour (workers down), one group could have 720,000 at 200/s, and one pass
 * would have locked, decided and rewritten them all in one transaction. A backlog is decided as it
 * arrived, as a scheduler that had kept up would have, this many at a time. The same as a debounced
 * run's most deliveries, so a debounce burst past it fires one full run per pass.
 */
export const PASS_PENDING_PER_GROUP = MAX_DEBOUNCED_DELIVERIES;
// While groups are dirty (or were a moment ago): a pass this often.
const POLL_MS = 1_000;
/**
 * Idle (no pending run, no group dirty or due), the scheduler looks with one indexed statement
 * and backs off, doubling from POLL_MS up to this, so an instance where no
 * automation uses run control costs one small query every 10 s. Whatever
 * marks a group dirty in this process (the ingress, a replay, a run that ends
 * here, a member's cancel) wakes it at once, and it sleeps no longer than
 * until the next group falls due; so this bounds only how long a group marked
 * by another process with no scheduler of its own (`tripline run cancel`)
 * waits (docs/automations.md, Run control).
 */
export const IDLE_MAX_MS = 10_000;
/**
 * Passes begin at least this far apart, woken or not (but back to back while
 * a pass finds a full batch). Under a steady stream every delivery wakes the
 * scheduler: back-to-back passes each decided one or two deliveries, and their
 * fixed cost (the claim, the reads, the group's row) was paid per delivery:
 * 1.3-2.4 ms of PostgreSQL CPU each at 200/s against 0.4 ms without run control,
 * and the ingress's p99 went from 63-69 to 104-121 ms (bench/run-control.mjs; what
 * the gap saves is within that bench's noise). One pass per gap decides the interval's deliveries together; a
 * decision waits at most this much longer (docs/decisions/0113). 250 ms rather than 100: one pass
 * then sees several deliveries of a busy group and supersedes all but the newest at once, instead
 * of making each wait first (two writes of the run, each in all of Run's indexes): at 200/s over
 * 20 groups, 60% fewer runs made to wait and group rows written, and PostgreSQL's CPU for run
 * control per delivery from +0.36-0.65 to +0.13 ms (docs/decisions/0117).
 */
export const PASS_GAP_MS = 250;
// How often the groups past MAX_GROUPS_PER_AUTOMATION are forgotten.
const TRIM_MS = 60_000;
// A pass's wait for a connection, and its transaction's bound (it holds its groups' locks until it ends).
const PASS_WAIT_MS = 10_000;
const PASS_TIMEOUT_MS = 30_000;

const ACTIVE_SQL = sqlStatusList(ACTIVE_RUN_STATUSES);
const NOT_PENDING_SQL = sqlStatusList(ACTIVE_RUN_STATUSES.filter((status) => status !== 'pending'));
/**
 * A pass's hold on a group: a transaction-scoped advisory lock on the
 * group's key (two keys whose hashes collide only share a pass's turn),
 * taken without waiting. It keeps other passes out of the group until the
 * pass's transaction ends, while the group's row stays free for the writers
 * that mark it dirty (docs/decisions/0112).
 */
const groupLock = (row = '') => `pg_try_advisory_xact_lock(hashtextextended('tripline.run-group:' || ${row}"automationId" || ':' || ${row}"key", 0))`;
const GROUPS_FROM = (param: string) => `(SELECT x->>0 AS "automationId", x->>1 AS "key" FROM jsonb_array_elements(${param}::jsonb) x)`;

type ClaimedGroup = GroupState & { automationId: string; key: string; runControl: unknown; /** RunGroup.changes as read, as text (a bigint). */ changes: string };
type RunRow = Omit<GroupRun, 'status'> & { status: string; automationId: string; key: string };

/** A pass: groups decided, groups left for the next pass (a run being changed; more pending than one pass reads), runs started, runs changed. */
export type PassResult = { groups: number; deferred: number; truncated: number; started: number; changes: number };

/** The automation's settings; none (turned off, or unreadable) lets every waiting run go on. */
function controlOf(raw: unknown): RunControl {
  const parsed = runControlSchema.safeParse(typeof raw === 'string' ? JSON.parse(raw) : raw);
  return parsed.success ? parsed.data : ({} as RunControl);
}

const outcomeOf = (change: RunChange): string | null =>
  change.status === 'queued' ? (change.from === 'queued' ? null : 'started') : change.status !== change.from ? change.status : change.cancelRequestedAt ? 'cancel_requested' : null;

/** The line a debounced run's envelope text gains: the deliveries it stands for (its payload is the last one's). */
export function debouncedLine(deliveryIds: readonly string[]): string {
  return `\nThis run stands for ${deliveryIds.length === 1 ? '1 delivery' : `${deliveryIds.length} deliveries`} collapsed by debounce, oldest first: ${deliveryIds.map((id) => JSON.stringify(id)).join(', ')}. The attached payload is the last one's.`;
}

/**
 * Makes the row of each group that has a pending run and no row (the first
 * delivery of a group, or one whose idle group was trimmed while its run was
 * being recorded: the trim decides from what is committed). One statement, in
 * key order, outside a pass's transaction: it never writes an existing group,
 * and waits only for another instance making the same group this moment. A
 * pass calls it only when its claim found such a group, so a steady stream to
 * known groups costs no statement here.
 */
async function makeMissingGroups(db: Db): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO "RunGroup" ("automationId", "key", "keyText", "dirty", "activeAt")
     SELECT DISTINCT ON (r."automationId", r."controlKey") r."automationId", r."controlKey", COALESCE(r."controlKeyText", r."controlKey"), true, now()
       FROM "Run" r
      WHERE r."status" = 'pending' AND r."controlKey" IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM "RunGroup" g WHERE g."automationId" = r."automationId" AND g."key" = r."controlKey")
      ORDER BY r."automationId", r."controlKey"
     ON CONFLICT ("automationId", "key") DO NOTHING`,
  );
}

/**
 * One pass: claims up to PASS_GROUPS groups with pending runs, as many dirty and as many due ones,
 * and decides them in one transaction, at the time `clock` gives once it has read them (a Date:
 * that time, as the tests drive it). When the claim found groups with a pending run and no row,
 * it makes their rows and passes once more, so a group's first delivery is decided by the same
 * call.
 */
export async function schedulePass(clock: Date | (() => Date), db: Db = prisma, pendingPerGroup = PASS_PENDING_PER_GROUP): Promise<PassResult> {
  const read = typeof clock === 'function' ? clock : () => clock;
  const once = async () => {
    // Under load a pass waits for a connection (Prisma's default gives up after 2 s) rather than fail a turn: the ingress shares the pool.
    const result = await db.$transaction((tx) => decideGroups(tx, read, pendingPerGroup), { maxWait: PASS_WAIT_MS, timeout: PASS_TIMEOUT_MS });
    const counter = metrics().runControlOutcomes;
    for (const [outcome, count] of result.outcomes) counter.inc({ outcome }, count);
    return result;
  };
  const first = await once();
  if (!first.rowless) return first.pass;
  await makeMissingGroups(db);
  const second = await once();
  return {
    groups: first.pass.groups + second.pass.groups,
    deferred: first.pass.deferred + second.pass.deferred,
    truncated: first.pass.truncated + second.pass.truncated,
    started: first.pass.started + second.pass.started,
    changes: first.pass.changes + second.pass.changes,
  };
}

const NOTHING: PassResult = { groups: 0, deferred: 0, truncated: 0, started: 0, changes: 0 };

async function decideGroups(tx: Tx, clock: () => Date, pendingPerGroup: number): Promise<{ pass: PassResult; outcomes: Map<string, number>; rowless: boolean }> {
  const outcomes = new Map<string, number>();
  // The clock is read once the pass holds a connection, not when it began waiting for one (up to PASS_WAIT_MS under
  // load): a time from before the wait would open a throttle period, or start a debounce, seconds in the past.
  const claimedAt = clock();
  // The claim takes the groups' locks. It reads no group's state: a statement sees what was committed when it
  // began, so a group whose lock another pass released while this statement ran would be read as it was before
  // that pass (a rate limit's period without the runs that pass started). Read once the locks are held, in a
  // statement of its own, a group's state is the last pass's: no other pass can change it until this one ends.
  const claimed = await tx.$queryRawUnsafe<{ automationId: string; key: string }[]>(
    `WITH fresh AS (SELECT p."automationId", p."key" FROM (SELECT DISTINCT r."automationId", r."controlKey" AS "key" FROM "Run" r WHERE r."status" = 'pending' AND r."controlKey" IS NOT NULL) p
                     WHERE ${groupLock('p.')} LIMIT $2),
          dirty AS (SELECT "automationId", "key" FROM "RunGroup" WHERE "dirty" AND ${groupLock()} LIMIT $2),
          due AS (SELECT "automationId", "key" FROM "RunGroup" WHERE "dueAt" <= $1 AND NOT "dirty" AND ${groupLock()} LIMIT $2)
     SELECT "automationId", "key" FROM fresh UNION SELECT "automationId", "key" FROM dirty UNION SELECT "automationId", "key" FROM due`,
    claimedAt,
    PASS_GROUPS,
  );
  if (claimed.length === 0) return { pass: NOTHING, outcomes, rowless: false };
  // The groups' state, and the runs of each that have not ended (of the pending ones, the oldest
  // PASS_PENDING_PER_GROUP), listed without locks, then read with their locks: a group with a listed
  // row not among the locked ones is being changed by a worker (which will mark it dirty again) and
  // waits for the next pass. By their IDs, not their number: a delivery's pending run committed
  // between the two statements would make up for a row skipped as locked, and the pass would decide
  // without a run in progress (two running under a limit of 1). A run recorded after the list waits
  // for the next pass (it is pending: its group is claimed again). The lists come from
  // Run_active_group_idx, which holds only runs not ended: a group's history is never read.
  const inGroup = `r."automationId" = g."automationId" AND r."controlKey" = g."key"`;
  const groups = await tx.$queryRawUnsafe<(ClaimedGroup & { ids: string[]; more: boolean })[]>(
    `SELECT g."automationId", g."key", g."burstStartedAt", g."burstDueAt", g."windowStartedAt", g."windowRuns", g."changes"::text AS "changes", a."runControl",
            ARRAY(SELECT r."id" FROM "Run" r WHERE ${inGroup} AND r."status" IN (${NOT_PENDING_SQL}))
            || ARRAY(SELECT r."id" FROM "Run" r WHERE ${inGroup} AND r."status" = 'pending' ORDER BY r."createdAt", r."id" LIMIT $2) AS "ids",
            EXISTS (SELECT 1 FROM "Run" r WHERE ${inGroup} AND r."status" = 'pending' ORDER BY r."createdAt", r."id" OFFSET $2 LIMIT 1) AS "more"
       FROM "RunGroup" g JOIN ${GROUPS_FROM('$1')} c ON g."automationId" = c."automationId" AND g."key" = c."key"
       JOIN "Automation" a ON a."id" = g."automationId"`,
    JSON.stringify(claimed.map((group) => [group.automationId, group.key])),
    pendingPerGroup,
  );
  // A claimed group without a row had a pending run and none: the caller makes its row and passes again.
  const rowless = groups.length < claimed.length;
  if (groups.length === 0) return { pass: NOTHING, outcomes, rowless };
  const groupKey = (row: { automationId: string; key: string }) => JSON.stringify([row.automationId, row.key]);
  const listed = new Map(groups.map((group) => [groupKey(group), group.ids]));
  const truncated = new Set(groups.filter((group) => group.more).map(groupKey));
  const rows = await tx.$queryRawUnsafe<RunRow[]>(
    `SELECT r."id", r."automationId", r."controlKey" AS "key", r."status"::text AS "status", r."deliveryId" AS "deliveryRowId",
            COALESCE(r."envelope"->>'deliveryId', r."id") AS "deliveryId", r."outcomeRunId", r."notBefore", r."cancelRequestedAt"
       FROM "Run" r
      WHERE r."id" = ANY($1::text[]) AND r."status" IN (${ACTIVE_SQL})
      ORDER BY r."createdAt", r."id"
        FOR UPDATE OF r SKIP LOCKED`,
    groups.flatMap((group) => group.ids),
  );
  // Decided as of now, after the reads: every run seen here was recorded before this time.
  const now = new Date(Math.max(clock().getTime(), claimedAt.getTime()));
  const runsOf = new Map<string, GroupRun[]>();
  for (const { automationId, key, ...run } of rows) {
    const list = runsOf.get(groupKey({ automationId, key })) ?? [];
    list.push({ ...run, status: run.status as ActiveStatus });
    runsOf.set(groupKey({ automationId, key }), list);
  }

  const changes: (RunChange & { envelopeLine?: string })[] = [];
  const states: Record<string, unknown>[] = [];
  let deferred = 0;
  for (const group of groups) {
    const runs = runsOf.get(groupKey(group)) ?? [];
    const locked = new Set(runs.map((run) => run.id));
    if ((listed.get(groupKey(group)) ?? []).some((id) => !locked.has(id))) {
      deferred += 1;
      states.push({ automationId: group.automationId, key: group.key, changes: group.changes, dirty: true, keep: true });
      continue;
    }
    const decision = decide(controlOf(group.runControl), { ...group, windowRuns: Number(group.windowRuns) }, runs, now);
    for (const change of decision.changes) {
      changes.push(change.deliveryIds ? { ...change, envelopeLine: debouncedLine(change.deliveryIds) } : change);
      const outcome = outcomeOf(change);
      if (outcome) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    // A group with pending runs past what one pass reads stays dirty: the next pass decides the next of them.
    states.push({ automationId: group.automationId, key: group.key, changes: group.changes, dirty: truncated.has(groupKey(group)), keep: false, dueAt: decision.dueAt, ...decision.state });
  }
  await writePass(tx, changes, states, now);
  const started = changes.filter((change) => change.status === 'queued' && change.from !== 'queued').length;
  // Only the groups decided: a deferred group waits for its pass in any case.
  const left = states.filter((state) => !state.keep && state.dirty).length;
  return { pass: { groups: groups.length, deferred, truncated: left, started, changes: changes.length }, outcomes, rowless };
}

// Times travel as ISO 8601 text (UTC) in the JSON, and are stored as the UTC timestamps the schema holds.
const timestamp = (text: string) => `((${text})::timestamptz AT TIME ZONE 'UTC')`;

/**
 * Writes a pass's changes and its groups' state in one statement. Each change applies only to a
 * run still in the status it was read with (it is locked). The groups' rows are locked in key order
 * first, as every writer locks them (lib/domain/run-control/dirty.ts): an UPDATE alone locks them in
 * its join's order, and a delivery recording two groups of the pass in the other order deadlocked
 * with it (PostgreSQL ended the delivery's statement after its 1 s deadlock timeout, and the
 * ingress's p99 went from 0.1 to 5 s; bench/run-control.mjs). The runs' rows are this pass's
 * already, so the statement takes no lock but the groups'.
 */
async function writePass(tx: Tx, changes: (RunChange & { envelopeLine?: string })[], states: Record<string, unknown>[], now: Date): Promise<void> {
  const column = (name: string, value: string) => `"${name}" = CASE WHEN c ? '${name}' THEN ${value} ELSE r."${name}" END`;
  const kept = (name: string, value: string) => `"${name}" = CASE WHEN (c->>'keep')::boolean THEN g."${name}" ELSE ${value} END`;
  const [written] = await tx.$queryRawUnsafe<{ updated: number }[]>(
    `WITH changed AS (
       UPDATE "Run" r
          SET "status" = (c->>'status')::"RunStatus",
              ${column('outcomeRunId', `c->>'outcomeRunId'`)},
              ${column('outcomeDeliveryId', `c->>'outcomeDeliveryId'`)},
              ${column('outcomeDetail', `c->>'outcomeDetail'`)},
              ${column('notBefore', timestamp(`c->>'notBefore'`))},
              ${column('cancelRequestedAt', timestamp(`c->>'cancelRequestedAt'`))},
              "finishedAt" = CASE WHEN (c->>'finished')::boolean THEN $3 ELSE r."finishedAt" END,
              "envelope" = CASE WHEN c ? 'deliveryIds'
                                THEN jsonb_set(jsonb_set(r."envelope", '{deliveryIds}', c->'deliveryIds'), '{text}', to_jsonb((r."envelope"->>'text') || (c->>'envelopeLine')))
                                ELSE r."envelope" END
         FROM jsonb_array_elements($1::jsonb) c
        WHERE r."id" = c->>'id' AND r."status" = (c->>'from')::"RunStatus"
        RETURNING 1
     ),
     locked AS MATERIALIZED (
       SELECT x."automationId", x."key" FROM "RunGroup" x
        WHERE (x."automationId", x."key") IN (SELECT c->>'automationId', c->>'key' FROM jsonb_array_elements($2::jsonb) c)
        ORDER BY x."automationId", x."key"
          FOR UPDATE
     ),
     written AS (
       UPDATE "RunGroup" g
          SET "dirty" = (c->>'dirty')::boolean OR g."changes" <> (c->>'changes')::bigint,
              ${kept('dueAt', timestamp(`c->>'dueAt'`))},
              ${kept('burstStartedAt', timestamp(`c->>'burstStartedAt'`))},
              ${kept('burstDueAt', timestamp(`c->>'burstDueAt'`))},
              ${kept('windowStartedAt', timestamp(`c->>'windowStartedAt'`))},
              ${kept('windowRuns', `(c->>'windowRuns')::int`)},
              ${kept('activeAt', 'now()')}
         FROM jsonb_array_elements($2::jsonb) c, locked l
        WHERE g."automationId" = c->>'automationId' AND g."key" = c->>'key' AND l."automationId" = g."automationId" AND l."key" = g."key"
     )
     SELECT count(*)::int AS "updated" FROM changed`,
    JSON.stringify(changes),
    JSON.stringify(states),
    now,
  );
  const updated = written?.updated ?? 0;
  // Every run was locked with its status: a shortfall means a writer that does not mark the group dirty (a bug).
  if (updated !== changes.length) throw new Error(`run control: ${changes.length - updated} of ${changes.length} changes found their run changed under its lock`);
}

/**
 * Forgets the groups idle longest of the automations past MAX_GROUPS_PER_AUTOMATION:
 * only groups with nothing to decide and no run that has not ended (their
 * throttle or rate limit period goes with them). Returns how many. It decides
 * from what is committed: a group whose pending run is being recorded this
 * moment may go, and the next pass makes it again (makeMissingGroups).
 */
export async function forgetIdleGroups(db: Db = prisma, max = MAX_GROUPS_PER_AUTOMATION): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ forgotten: number }[]>(
    `WITH crowded AS (
       SELECT "automationId", count(*) - $1 AS "excess" FROM "RunGroup" GROUP BY "automationId" HAVING count(*) > $1
     ),
     idle AS (
       SELECT g."automationId", g."key" FROM crowded c
        CROSS JOIN LATERAL (
          SELECT x."automationId", x."key" FROM "RunGroup" x
           WHERE x."automationId" = c."automationId" AND NOT x."dirty" AND x."dueAt" IS NULL
             AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."automationId" = x."automationId" AND r."controlKey" = x."key" AND r."status" IN (${ACTIVE_SQL}))
             AND ${groupLock('x.')}
           ORDER BY x."activeAt", x."key"
           LIMIT c."excess"
             FOR UPDATE SKIP LOCKED
        ) g
     ),
     forgotten AS (
       DELETE FROM "RunGroup" g USING idle i WHERE g."automationId" = i."automationId" AND g."key" = i."key" RETURNING 1
     )
     SELECT count(*)::int AS "forgotten" FROM forgotten`,
    max,
  );
  return rows[0]?.forgotten ?? 0;
}

/**
 * Whether a pass has work now (a pending run, a group dirty, or one due by
 * `now`), and when the next group falls due: one statement on RunGroup's and
 * Run's indexes, no transaction.
 */
export async function pendingWork(now: Date, db: Db = prisma): Promise<{ ready: boolean; nextDueAt: Date | null }> {
  const [row] = await db.$queryRawUnsafe<{ dirty: boolean; dueAt: Date | null }[]>(
    `SELECT EXISTS (SELECT 1 FROM "RunGroup" WHERE "dirty") OR EXISTS (SELECT 1 FROM "Run" WHERE "status" = 'pending' AND "controlKey" IS NOT NULL) AS "dirty", (SELECT min("dueAt") FROM "RunGroup") AS "dueAt"`,
  );
  const nextDueAt = row?.dueAt ?? null;
  return { ready: Boolean(row?.dirty) || (nextDueAt !== null && nextDueAt.getTime() <= now.getTime()), nextDueAt };
}

/**
 * Starts this instance's scheduler: passes until stopped, at once again while
 * a pass found a full batch or something woke it, every POLL_MS while there
 * is work, and while there is none a look that backs off up to IDLE_MAX_MS,
 * never past the next group's due time. `onStarted` is told when runs were
 * queued (the run workers' wake).
 */
export function startScheduler(
  options: {
    onStarted?: () => void;
    log?: (line: string) => void;
    now?: () => Date;
    pollMs?: number;
    /** The longest idle wait (IDLE_MAX_MS); never shorter than pollMs. */
    idleMaxMs?: number;
    /** Forget the groups past the bound once a minute (servers do; `tripline worker`, whose database role may not delete, does not). */
    trim?: boolean;
  } = {},
): Scheduler & { done: Promise<void> } {
  const now = options.now ?? (() => new Date());
  let stopped = false;
  let woken = false;
  let resume: (() => void) | null = null;
  let trimmedAt = Date.now();
  const wake = () => {
    woken = true;
    resume?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resume = null;
        resolve();
      }
      resume = done;
    });
  /** Waits until `until` (Date.now() time), whatever wakes it meanwhile; a stop ends it. */
  const pause = async (until: number) => {
    while (!stopped && Date.now() < until) await sleep(until - Date.now());
  };
  const pollMs = options.pollMs ?? POLL_MS;
  let lastPassAt = 0;
  let backlog = false;
  const idleMaxMs = Math.max(options.idleMaxMs ?? IDLE_MAX_MS, pollMs);
  let idleMs = pollMs;
  const loop = async () => {
    while (!stopped) {
      // What woke it (a pending run recorded here, a run that ended here, a cancel) is work, as is a
      // backlog: the pass's own claim looks, without a statement before it to ask.
      const known = woken || backlog;
      woken = false;
      let more = false;
      let wait = pollMs;
      try {
        const at = now();
        const work = known ? { ready: true, nextDueAt: null } : await pendingWork(at);
        if (work.ready) {
          idleMs = pollMs;
          // What woke it meanwhile is decided by this pass too.
          if (!backlog) await pause(lastPassAt + PASS_GAP_MS);
          if (stopped) break;
          woken = false;
          lastPassAt = Date.now();
          // The pass reads its own clock once it holds a connection (decision 0101).
          const pass = await schedulePass(now);
          more = (pass.groups >= PASS_GROUPS && pass.deferred < pass.groups) || pass.truncated > 0;
          backlog = more;
          if (pass.started > 0) options.onStarted?.();
        } else {
          idleMs = Math.min(idleMs * 2, idleMaxMs);
          wait = work.nextDueAt ? Math.min(idleMs, Math.max(0, work.nextDueAt.getTime() - at.getTime())) : idleMs;
        }
        if (options.trim !== false && Date.now() - trimmedAt >= TRIM_MS) {
          trimmedAt = Date.now();
          await forgetIdleGroups();
        }
      } catch (error) {
        if (stopped) break;
        options.log?.(`run control scheduler error: ${(error as Error).message}`);
        // A failure that lasts (the database away, a worker's role without a grant) is retried, and logged, at the idle pace.
        idleMs = Math.min(idleMs * 2, idleMaxMs);
        wait = idleMs;
      }
      if (!more && !woken && !stopped) await sleep(wait);
    }
  };
  const done = loop();
  const scheduler = {
    done,
    wake,
    stop: async () => {
      stopped = true;
      wake();
      await done;
    },
  };
  schedulers.add(scheduler);
  void done.finally(() => schedulers.delete(scheduler));
  return scheduler;
}
