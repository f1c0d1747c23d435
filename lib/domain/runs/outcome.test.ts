import { describe, expect, it } from 'vitest';
import { outcomeExplanation, outcomeLabel, outcomeSegments, outcomeText, runOutcome, RUN_OUTCOME_KINDS, type OutcomeRow } from '@/lib/domain/runs/outcome';
import type { RunStatus } from '@/lib/domain/run-status/statuses';

// One reading of a run row's outcome for every page and the API: each status,
// with and without the reference its outcome names.

const at = new Date('2026-11-28T12:00:00.000Z');
const row = (status: RunStatus, refs: Partial<OutcomeRow> = {}): OutcomeRow => ({
  status,
  outcomeRunId: null,
  outcomeDeliveryId: null,
  outcomeDetail: null,
  notBefore: null,
  ...refs,
});
const every = { outcomeRunId: 'run_1', outcomeDeliveryId: 'dl_2', outcomeDetail: 'rate limit: 10 runs per 1 min', notBefore: at };

describe('runOutcome and outcomeText', () => {
  it.each(['queued', 'running', 'succeeded', 'failed'] as const)('a %s run was Started, whatever else the row holds', (status) => {
    expect(runOutcome(row(status, every))).toEqual({ kind: 'started' });
    expect(outcomeText(runOutcome(row(status)))).toBe('Started a run');
  });

  const cases: [RunStatus, Partial<OutcomeRow>, object, string][] = [
    ['pending', every, { kind: 'pending' }, 'Pending: run control has not decided yet'],
    ['waiting', every, { kind: 'waiting', runId: 'run_1' }, 'Waiting behind run run_1'],
    ['debouncing', every, { kind: 'debouncing', at }, 'Debouncing until 2026-11-28T12:00:00.000Z'],
    ['throttled', every, { kind: 'throttled', at }, 'Throttled: starts at 2026-11-28T12:00:00.000Z'],
    ['superseded', every, { kind: 'superseded', deliveryId: 'dl_2' }, 'Superseded by delivery dl_2'],
    ['debounced', every, { kind: 'debounced', runId: 'run_1' }, 'Debounced into run run_1'],
    ['skipped', every, { kind: 'skipped', detail: 'rate limit: 10 runs per 1 min' }, 'Skipped: rate limit: 10 runs per 1 min'],
    ['cancelled', every, { kind: 'cancelled', deliveryId: 'dl_2' }, 'Cancelled by delivery dl_2'],
  ];
  it.each(cases)('%s names only its own reference', (status, refs, outcome, text) => {
    expect(runOutcome(row(status, refs))).toEqual(outcome);
    expect(outcomeText(runOutcome(row(status, refs)))).toBe(text);
  });

  const bare: [RunStatus, string][] = [
    ['waiting', 'Waiting for a run of its group to finish'],
    ['debouncing', 'Debouncing until its group is quiet'],
    ['throttled', 'Throttled: starts when its group’s limit allows'],
    ['superseded', 'Superseded by a newer delivery of its group'],
    ['debounced', 'Debounced into a later run of its group'],
    ['skipped', 'Skipped'],
    ['cancelled', 'Cancelled by an admin'],
  ];
  it.each(bare)('%s without its reference still reads as a sentence', (status, text) => {
    expect(runOutcome(row(status))).toEqual({ kind: status });
    expect(outcomeText(runOutcome(row(status)))).toBe(text);
  });

  it('keeps references apart from text, for the pages to link', () => {
    expect(outcomeSegments(runOutcome(row('waiting', every)))).toEqual(['Waiting behind run ', { run: 'run_1' }]);
    expect(outcomeSegments(runOutcome(row('cancelled', every)))).toEqual(['Cancelled by delivery ', { delivery: 'dl_2' }]);
    expect(outcomeSegments(runOutcome(row('throttled', every)))).toEqual(['Throttled: starts at ', { time: at }]);
  });

  it('labels and explains every kind (a started run needs no explanation)', () => {
    for (const kind of RUN_OUTCOME_KINDS) {
      expect(outcomeLabel({ kind })).toMatch(/^[A-Z][a-z]+$/);
      if (kind === 'started') expect(outcomeExplanation({ kind })).toBeNull();
      else expect(outcomeExplanation({ kind })).toMatch(/\.$/);
    }
    expect(outcomeExplanation({ kind: 'cancelled' })).toContain('An admin cancelled the run');
    expect(outcomeExplanation({ kind: 'cancelled', deliveryId: 'dl_2' })).toContain('Cancel running');
  });
});
