import { afterEach, describe, expect, it } from 'vitest';
import { budget, describeSpeed, measureSpeedFactor, REFERENCE_MS, speedFactor } from './speed.mjs';

// The speed factor scales every test's time budget (decision 95).

const given = process.env.TRIPLINE_TEST_SPEED;
afterEach(() => {
  if (given === undefined) delete process.env.TRIPLINE_TEST_SPEED;
  else process.env.TRIPLINE_TEST_SPEED = given;
});

describe('budget', () => {
  it('scales a figure by the factor npm test measured', () => {
    process.env.TRIPLINE_TEST_SPEED = '2.5';
    expect(speedFactor()).toBe(2.5);
    expect(budget(60_000)).toBe(150_000);
  });

  it('never shrinks a figure on a machine faster than the reference', () => {
    process.env.TRIPLINE_TEST_SPEED = '0.7';
    expect(budget(10_000)).toBe(10_000);
  });

  it('is bounded: a machine eight times slower fails its budgets anyway', () => {
    process.env.TRIPLINE_TEST_SPEED = '50';
    expect(budget(1_000)).toBe(8_000);
  });

  it('takes the figures as set when no factor is given or it is not a number', () => {
    for (const value of ['', 'fast', '-1']) {
      process.env.TRIPLINE_TEST_SPEED = value;
      expect(budget(5_000)).toBe(5_000);
    }
  });
});

describe('measureSpeedFactor', () => {
  it('times the workload on every core and relates it to machine C', async () => {
    const measured = await measureSpeedFactor();
    expect(measured.ms).toBeGreaterThan(0);
    expect(measured.factor).toBeCloseTo(Math.min(8, measured.ms / REFERENCE_MS), 1);
    expect(describeSpeed(measured)).toMatch(/^speed factor [0-9.]+ \(a fixed workload on \d+ cores took \d+ ms; machine C: \d+ ms\)/);
  });
});
