import { relativeTime, timeUntil } from './format';
import { preciseDateTimeFormat } from '@/components/format';

/** A table cell's time: the date and time, and under it how long ago ("2 min ago"). */
export function Timestamp({ at, now }: { at: Date; now?: number }) {
  const relative = relativeTime(at, now);
  return (
    <time dateTime={at.toISOString()} title={at.toISOString()} className="flex flex-col leading-5">
      <span className="whitespace-nowrap text-fg">{preciseDateTimeFormat.format(at)}</span>
      {relative ? <span className="text-xs text-fg-subtle">{relative}</span> : null}
    </time>
  );
}

/** A time in a detail row: the date and time, then "· 2 min ago", or "· in 14 min" for one to come. */
export function InlineTime({ at, now, future }: { at: Date; now?: number; future?: boolean }) {
  const relative = future ? timeUntil(at, now) : relativeTime(at, now);
  return (
    <>
      <time dateTime={at.toISOString()} title={at.toISOString()}>
        {preciseDateTimeFormat.format(at)}
      </time>
      {relative ? <span className="ml-1.5 text-fg-muted">· {relative}</span> : null}
    </>
  );
}
