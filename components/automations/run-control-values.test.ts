import { describe, expect, it } from 'vitest';
import { automationFormSchema, formField } from '@/components/automations/form-values';
import {
  emptyRunControl,
  keyPartText,
  runControlFormSchema,
  runControlFormValues,
  splitKeyParts,
  type RunControlFormValues,
} from '@/components/automations/run-control-values';
import { runControlSchema } from '@/lib/domain/run-control/config';
import { parseKeyPart } from '@/lib/domain/run-control/key-syntax';
import { describeRunControl, formatPeriod, parsePeriod } from '@/lib/domain/run-control/describe';

// The editor's Run control section: what people type becomes the settings the
// API stores (periods in seconds), each problem lands next to its field with
// the schema's own words, and saved settings read back into the same fields.

const on = (values: Partial<RunControlFormValues>): RunControlFormValues => ({ ...emptyRunControl, enabled: true, ...values });
const errors = (values: RunControlFormValues) => {
  const result = runControlFormSchema.safeParse(values);
  return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
};

describe('the Run control section', () => {
  it('is off by default, and off stores none', () => {
    expect(emptyRunControl.enabled).toBe(false);
    expect(runControlFormSchema.parse(emptyRunControl)).toBeNull();
    expect(runControlFormValues(null)).toEqual(emptyRunControl);
  });

  it('turns what was typed into the settings, periods in seconds', () => {
    const settings = runControlFormSchema.parse(
      on({
        key: 'repository.full_name, pull_request.number',
        concurrencyLimit: '2',
        whenFull: 'cancel-running',
        debounce: true,
        debouncePeriod: '30',
        debounceUnit: 'seconds',
        maxWait: '10',
        maxWaitUnit: 'minutes',
        pace: true,
        paceKind: 'throttle',
        paceLimit: '5',
        pacePeriod: '1',
        paceUnit: 'hours',
        paceQueueLimit: '',
      }),
    );
    expect(settings).toEqual({
      key: ['repository.full_name', 'pull_request.number'],
      concurrency: { limit: 2, whenFull: 'cancel-running' },
      debounce: { periodSeconds: 30, maxWaitSeconds: 600 },
      throttle: { limit: 5, periodSeconds: 3600 },
    });
    expect(runControlSchema.parse(settings)).toEqual(settings);
  });

  it('a rate limit instead of a throttle; queue-all keeps its queue limit', () => {
    expect(runControlFormSchema.parse(on({ whenFull: 'queue-all', queueLimit: '7', pace: true, paceKind: 'rateLimit', paceQueueLimit: '9' }))).toEqual({
      concurrency: { limit: 1, whenFull: 'queue-all', queueLimit: 7 },
      rateLimit: { limit: 10, periodSeconds: 60 },
    });
  });

  it('puts each problem next to its field, in the schema’s words', () => {
    expect(errors(on({ concurrencyLimit: '0' }))).toEqual({ concurrencyLimit: 'The concurrency limit is at least 1' });
    expect(errors(on({ concurrencyLimit: 'two' }))).toEqual({ concurrencyLimit: 'The concurrency limit is a number' });
    expect(errors(on({ debounce: true, debouncePeriod: '25', debounceUnit: 'hours' }))).toEqual({
      debouncePeriod: 'The debounce period is at most 86,400 seconds (24 hours)',
    });
    expect(errors(on({ debounce: true, debouncePeriod: '10', debounceUnit: 'minutes', maxWait: '5', maxWaitUnit: 'minutes' }))).toEqual({
      maxWait: 'The maximum wait cannot be shorter than the debounce period',
    });
    expect(errors(on({ pace: true, paceLimit: '', pacePeriod: '0' }))).toEqual({ paceLimit: 'The throttle limit is a number', pacePeriod: 'The throttle period is at least 1 second' });
    expect(errors(on({ concurrency: false }))).toEqual({ enabled: 'Run control needs at least one of concurrency, debounce, throttle or rate limit' });
    expect(errors(on({ key: 'a, , b' }))).toEqual({});
  });

  it('the whole form carries the section, and server messages find their field', () => {
    const parsed = automationFormSchema.safeParse({ name: 'n', prompt: 'p', enabled: true, triggers: [], runControl: on({ concurrencyLimit: '101' }) });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['runControl.concurrencyLimit', 'The concurrency limit is at most 100']]);
    expect(formField('runControl.concurrency.limit')).toBe('runControl.concurrencyLimit');
    expect(formField('runControl.debounce.maxWaitSeconds')).toBe('runControl.maxWait');
    expect(formField('runControl.throttle.queueLimit')).toBe('runControl.paceQueueLimit');
    expect(formField('runControl.rateLimit')).toBe('runControl.paceLimit');
    expect(formField('runControl.key.1')).toBe('runControl.key');
    expect(formField('runControl')).toBe('runControl.enabled');
  });

  it('reads saved settings back into the same fields, in the largest whole unit', () => {
    const saved = runControlSchema.parse({
      key: ['["a,b"].c', '$event'],
      debounce: { periodSeconds: 90, maxWaitSeconds: 7200 },
      rateLimit: { limit: 3, periodSeconds: 600 },
      concurrency: { whenFull: 'skip' },
    });
    const values = runControlFormValues(saved);
    expect(values).toMatchObject({
      enabled: true,
      key: '["a,b"].c, $event',
      debouncePeriod: '90',
      debounceUnit: 'seconds',
      maxWait: '2',
      maxWaitUnit: 'hours',
      pace: true,
      paceKind: 'rateLimit',
      pacePeriod: '10',
      paceUnit: 'minutes',
      concurrencyLimit: '1',
      whenFull: 'skip',
    });
    expect(runControlFormSchema.parse(values)).toEqual(saved);
  });

  it('splits key parts at commas outside brackets; an apostrophe is a character, and an escaped quote stays in its step', () => {
    expect(splitKeyParts(' a.b ,$header.x-tenant,, ["x,y"].z ')).toEqual(['a.b', '$header.x-tenant', '["x,y"].z']);
    expect(splitKeyParts('')).toEqual([]);
    expect(splitKeyParts("it's.title, pull_request.number")).toEqual(["it's.title", 'pull_request.number']);
    expect(splitKeyParts('["say \\"hi, there\\""].x, y')).toEqual(['["say \\"hi, there\\""].x', 'y']);
  });

  it('shows a saved key the field splits back into the same parts, a plain step with a comma quoted', () => {
    // Set through the API: one part whose first step holds a comma, one with an apostrophe.
    const saved = runControlSchema.parse({ key: ['a,b.c', "it's", '$event'], concurrency: {} });
    const values = runControlFormValues(saved);
    expect(values.key).toBe(`["a,b"].c, it's, $event`);
    const again = runControlFormSchema.parse(values) as { key: string[] };
    expect(again.key.map((part) => parseKeyPart(part))).toEqual((saved.key as string[]).map((part) => parseKeyPart(part)));
    expect(keyPartText('a.b')).toBe('a.b');
  });
});

describe('run control in words', () => {
  it('reads and writes periods as people do', () => {
    expect([parsePeriod('90'), parsePeriod('90s'), parsePeriod('5m'), parsePeriod('5 min'), parsePeriod('1h'), parsePeriod('soon')]).toEqual([90, 90, 300, 300, 3600, 'soon']);
    expect([formatPeriod(90), formatPeriod(120), formatPeriod(86_400)]).toEqual(['90 s', '2 min', '24 h']);
  });

  it('describes the settings in one line, in the order the stages apply', () => {
    const settings = runControlSchema.parse({ key: 'pull_request.number', concurrency: { whenFull: 'cancel-running' }, debounce: { periodSeconds: 60 } });
    expect(describeRunControl(settings)).toBe('key [pull_request.number]; debounce 1 min; concurrency 1, when full: cancel running');
    expect(describeRunControl(runControlSchema.parse({ throttle: { limit: 10, periodSeconds: 60 } }))).toBe('one group (no key); throttle 10 per 1 min (queue 100)');
  });
});
