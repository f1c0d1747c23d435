// A run's statuses (prisma/schema.prisma, RunStatus), written once: the
// types, the pages' badges, the API's OpenAPI document, the scheduler's and
// the cancel's SQL all take them from here. No imports, so client components
// can use it too. A home of its own: the runs domain imports run control
// (dirty.ts, ended.ts) and run control reads these, so neither may hold them.

/** Every status a run can have, which is also its delivery's outcome under run control (docs/automations.md, Outcomes). */
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'pending', 'waiting', 'debouncing', 'throttled', 'superseded', 'debounced', 'skipped', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run that started: the outcome Started, whatever became of it. */
export const STARTED_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const satisfies readonly RunStatus[];

/** Not ended: run control decides these (in arrival order), a cancel applies to them, and the pages refresh while they show one. */
export const ACTIVE_RUN_STATUSES = ['pending', 'debouncing', 'throttled', 'waiting', 'queued', 'running'] as const satisfies readonly RunStatus[];
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

/** Statuses a cancel applies to: the run has not ended. */
export const CANCELLABLE_RUN_STATUSES: readonly RunStatus[] = ACTIVE_RUN_STATUSES;

export const isActiveRunStatus = (status: RunStatus): status is ActiveRunStatus => (ACTIVE_RUN_STATUSES as readonly RunStatus[]).includes(status);

/** The statuses as a SQL list (`'pending', 'debouncing', …`): constants, never input. */
export const sqlStatusList = (statuses: readonly RunStatus[]): string => statuses.map((status) => `'${status}'`).join(', ');
