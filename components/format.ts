// The dates and phrases of the dashboard, formatted the same way on every page.

/** "Nov 23, 2026" */
export const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });
/** "Nov 23, 2026, 4:15 PM" */
export const dateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
/** "Nov 23, 2026, 4:15:07 PM": when a delivery arrived, a run started, a branch applied. */
export const preciseDateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });

/** Details are recorded as phrases ("wrong bearer token"); shown alone they read as a sentence. */
export function sentence(phrase: string): string {
  const text = phrase.trim();
  if (!text) return text;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}
