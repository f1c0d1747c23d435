import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '@/lib/platform/instant';

describe('parseIsoInstant', () => {
  it('reads ISO 8601 dates and times, with a zone, without one (UTC), or a date alone (midnight UTC)', () => {
    expect(parseIsoInstant('2026-11-27T09:00:00Z')?.toISOString()).toBe('2026-11-27T09:00:00.000Z');
    expect(parseIsoInstant('2026-11-27T09:00:00.123456+02:00')?.toISOString()).toBe('2026-11-27T07:00:00.123Z');
    expect(parseIsoInstant('2026-11-27T09:00')?.toISOString()).toBe('2026-11-27T09:00:00.000Z');
    expect(parseIsoInstant('2026-11-27')?.toISOString()).toBe('2026-11-27T00:00:00.000Z');
    expect(parseIsoInstant('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseIsoInstant('9999-12-31T23:59:59Z')?.toISOString()).toBe('9999-12-31T23:59:59.000Z');
    expect(parseIsoInstant('2028-02-29')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('refuses what Date.parse would read loosely, and dates no database can hold', () => {
    for (const text of [
      '0',
      '2026',
      '1',
      'Nov 27 2026',
      'Fri, 27 Nov 2026 09:00:00 GMT',
      '-271821-04-20T00:00:00Z',
      '+275760-09-13T00:00:00Z',
      '99999-12-31T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2027-02-29',
      '2026-13-01',
      '2026-11-27T24:00:00Z',
      '2026-11-27T09:60:00Z',
      '2026-11-27T09:00:00+24:00',
      '9999-12-31T23:00:00-02:00',
      '',
    ]) {
      expect(parseIsoInstant(text), text).toBeNull();
    }
  });
});
