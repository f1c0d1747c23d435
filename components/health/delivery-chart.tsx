import { scaleLinear } from 'd3-scale';
import { statusLabels, type DeliveryStats } from '@/lib/domain/health/service';
import { deliveryStatuses, type DeliveryStatusName } from '@/lib/domain/health/classify';

// Deliveries over time, stacked by status or by event type: an SVG drawn on
// the server (no chart code reaches the browser). d3-scale gives the y axis
// its "nice" maximum and ticks; the bars are plain rectangles.

export const statusColors: Record<DeliveryStatusName, string> = {
  accepted: '#10b981',
  duplicate: '#38bdf8',
  rejected_auth: '#ef4444',
  rejected_invalid_json: '#f97316',
  rejected_too_large: '#f59e0b',
  handshake: '#a78bfa',
  refused: '#71717a',
  refused_address: '#be123c',
};

// Eight distinguishable colours for the most frequent event types, then grey for the rest.
const typeColors = ['#6366f1', '#10b981', '#f59e0b', '#0ea5e9', '#ec4899', '#84cc16', '#f97316', '#14b8a6'];
const OTHER_COLOR = '#a1a1aa';
const NO_TYPE_COLOR = '#d4d4d8';

const WIDTH = 720;
const HEIGHT = 200;
const MARGIN = { top: 8, right: 8, bottom: 22, left: 36 };

const hourFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const rangeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

type Bucket = DeliveryStats['buckets'][number];
/** One stacked series: its React key, the value of its data attribute, label, colour, window total and count per bucket. */
type Series = { key: string; data: string; label: string; color: string; total: number; count: (bucket: Bucket) => number; mono?: boolean };

function StackedChart({
  stats,
  series,
  what,
  caption,
  dataAttribute,
}: {
  stats: DeliveryStats;
  series: Series[];
  what: string;
  caption: string;
  /** The attribute naming each figure's series (`data-status="accepted"`), for tests and tools. */
  dataAttribute: 'data-status' | 'data-event-type';
}) {
  const total = series.reduce((sum, s) => sum + s.total, 0);
  const bucketTotals = stats.buckets.map((bucket) => series.reduce((sum, s) => sum + s.count(bucket), 0));
  const y = scaleLinear()
    .domain([0, Math.max(1, ...bucketTotals)])
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const step = plotWidth / stats.buckets.length;
  const barWidth = Math.max(2, step * 0.72);
  const hourly = stats.bucketSeconds === 3600;
  // Labels every 6 hours (24 h) or every day (7 d).
  const labelEvery = hourly ? 6 : 4;
  const shown = series.filter((s) => s.total > 0);
  const summary = `${total} ${what} from ${rangeFormat.format(stats.from)} UTC: ${shown.map((s) => `${s.label} ${s.total}`).join(', ') || 'none'}`;

  return (
    <figure className="flex flex-col gap-4">
      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-4" aria-label={`${what[0]!.toUpperCase()}${what.slice(1)} per series`}>
        <div className="flex flex-col">
          <dt className="text-xs text-fg-muted">Total</dt>
          <dd className="text-lg font-semibold tabular-nums" {...{ [dataAttribute]: 'total' }}>
            {total.toLocaleString('en')}
          </dd>
        </div>
        {series.map((s) => (
          <div key={s.key} className="flex min-w-0 flex-col">
            <dt className="flex min-w-0 items-center gap-1.5 text-xs text-fg-muted">
              <span aria-hidden="true" className="size-2 shrink-0 rounded-sm" style={{ backgroundColor: s.color }} />
              <span className={s.mono ? 'truncate font-mono text-[11px]' : 'truncate'} title={s.label}>
                {s.label}
              </span>
            </dt>
            <dd className="text-lg font-semibold tabular-nums" {...{ [dataAttribute]: s.data }}>
              {s.total.toLocaleString('en')}
            </dd>
          </div>
        ))}
      </dl>
      <div className="overflow-hidden">
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-auto w-full" role="img" aria-label={summary}>
          {y
            .ticks(4)
            // Counts are whole: a scale up to 1 would otherwise tick at 0.2, 0.4….
            .filter((tick) => Number.isInteger(tick))
            .map((tick) => (
              <g key={tick}>
                <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} stroke="#e4e4e7" strokeDasharray={tick === 0 ? undefined : '3 3'} />
                <text x={MARGIN.left - 6} y={y(tick)} dy="0.32em" textAnchor="end" fontSize="11" fill="#71717a">
                  {tick}
                </text>
              </g>
            ))}
          {stats.buckets.map((bucket, index) => {
            const x = MARGIN.left + index * step + (step - barWidth) / 2;
            let base = 0;
            return (
              <g key={bucket.start.getTime()}>
                {series.map((s) => {
                  const count = s.count(bucket);
                  if (count === 0) return null;
                  const top = y(base + count);
                  const height = y(base) - top;
                  base += count;
                  return (
                    <rect key={s.key} x={x} y={top} width={barWidth} height={Math.max(height, 1)} fill={s.color} rx={1}>
                      <title>{`${rangeFormat.format(bucket.start)} UTC: ${s.label} ${count}`}</title>
                    </rect>
                  );
                })}
                {index % labelEvery === 0 ? (
                  <text x={MARGIN.left + index * step} y={HEIGHT - 6} fontSize="11" fill="#71717a">
                    {hourly ? hourFormat.format(bucket.start) : dayFormat.format(bucket.start)}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption className="text-[13px] text-fg-muted">{caption}</figcaption>
    </figure>
  );
}

const period = (stats: DeliveryStats) => (stats.bucketSeconds === 3600 ? 'per hour' : 'per 6 hours');

/** Requests stacked by status. */
export function DeliveryChart({ stats }: { stats: DeliveryStats }) {
  const series = deliveryStatuses.map((status) => ({
    key: status,
    data: status,
    label: statusLabels[status],
    color: statusColors[status],
    total: stats.totals[status],
    count: (bucket: Bucket) => bucket.counts[status],
  }));
  return (
    <StackedChart
      stats={stats}
      series={series}
      what="requests"
      dataAttribute="data-status"
      caption={`Requests ${period(stats)}, UTC. Refused counts every request a 429 summary stands for.`}
    />
  );
}

/** Accepted deliveries stacked by event type: the 8 most frequent types of the window, then every other type. */
export function EventTypeChart({ stats }: { stats: DeliveryStats }) {
  const totals = new Map(stats.eventTypes.map((entry) => [entry.type, entry.count]));
  const series: Series[] = stats.typeSeries.map((type, index) => ({
    key: `type:${type}`,
    // '' for deliveries without a type.
    data: type,
    label: type === '' ? 'No type' : type,
    color: type === '' ? NO_TYPE_COLOR : typeColors[index % typeColors.length]!,
    total: totals.get(type) ?? stats.buckets.reduce((sum, bucket) => sum + bucket.types[index]!, 0),
    count: (bucket) => bucket.types[index]!,
    mono: type !== '',
  }));
  const other = stats.buckets.reduce((sum, bucket) => sum + bucket.otherTypes, 0);
  if (other > 0) series.push({ key: 'other', data: '*', label: 'Other types', color: OTHER_COLOR, total: other, count: (bucket) => bucket.otherTypes });
  return (
    <StackedChart
      stats={stats}
      series={series}
      what="accepted deliveries"
      dataAttribute="data-event-type"
      caption={`Accepted deliveries ${period(stats)} by event type, UTC: the ${stats.typeSeries.length === 1 ? 'type' : `${stats.typeSeries.length} most frequent types`} of the period${other > 0 ? ', then every other type' : ''}.`}
    />
  );
}
