// The one reader of dates and times that people and scripts send: ISO 8601
// only (never Date.parse, which reads "0" as the year 2000 and accepts dates no
// database can hold). A date alone is midnight UTC; a time without a zone is
// UTC, as the dashboard shows times. Years 0001 to 9999, real calendar days,
// hours 00-23.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** What an ISO 8601 field accepts, for error messages. */
export const ISO_INSTANT_HINT = 'a date and time in ISO 8601 (2026-11-27T09:00:00Z), in the years 0001 to 9999';

/** The instant an ISO 8601 date or date and time names, or null when it is not one. */
export function parseIsoInstant(text: string): Date | null {
  const match = ISO.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  // A day past the month's end (February 30) rolls into the next month: refused.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  date.setUTCHours(h, mi, s, Number(fraction.slice(0, 3).padEnd(3, '0')));
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const [, sign, hours, minutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    if (Number(hours) > 23 || Number(minutes) > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  }
  const instant = new Date(date.getTime() - offsetMinutes * 60_000);
  const instantYear = instant.getUTCFullYear();
  return instantYear >= 1 && instantYear <= 9999 ? instant : null;
}
