import { scaleLinear } from 'd3-scale';
import { statusLabels, type DeliveryStats } from '@/lib/health/service';
import { deliveryStatuses, type DeliveryStatusName } from '@/lib/health/classify';

// Deliveries over time, stacked by status: an SVG drawn on the server (no
// chart code reaches the browser). d3-scale gives the y axis its "nice"
// maximum and ticks; the bars are plain rectangles.

export const statusColors: Record<DeliveryStatusName, string> = {
  accepted: '#10b981',
  duplicate: '#38bdf8',
  rejected_auth: '#ef4444',
  rejected_invalid_json: '#f97316',
  rejected_too_large: '#f59e0b',
  handshake: '#a78bfa',
  refused: '#71717a',
};

const WIDTH = 720;
const HEIGHT = 200;
const MARGIN = { top: 8, right: 8, bottom: 22, left: 36 };

const hourFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const rangeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function DeliveryChart({ stats }: { stats: DeliveryStats }) {
  const total = deliveryStatuses.reduce((sum, status) => sum + stats.totals[status], 0);
  const bucketTotals = stats.buckets.map((bucket) => deliveryStatuses.reduce((sum, status) => sum + bucket.counts[status], 0));
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
  const shown = deliveryStatuses.filter((status) => stats.totals[status] > 0);
  const summary = `${total} request${total === 1 ? '' : 's'} from ${rangeFormat.format(stats.from)} UTC: ${
    shown.map((status) => `${statusLabels[status]} ${stats.totals[status]}`).join(', ') || 'none'
  }`;

  return (
    <figure className="flex flex-col gap-4">
      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-4" aria-label="Requests per status">
        <div className="flex flex-col">
          <dt className="text-xs text-fg-muted">Total</dt>
          <dd className="text-lg font-semibold tabular-nums" data-status="total">
            {total.toLocaleString('en')}
          </dd>
        </div>
        {deliveryStatuses.map((status) => (
          <div key={status} className="flex flex-col">
            <dt className="flex items-center gap-1.5 text-xs text-fg-muted">
              <span aria-hidden="true" className="size-2 rounded-sm" style={{ backgroundColor: statusColors[status] }} />
              {statusLabels[status]}
            </dt>
            <dd className="text-lg font-semibold tabular-nums" data-status={status}>
              {stats.totals[status].toLocaleString('en')}
            </dd>
          </div>
        ))}
      </dl>
      <div className="overflow-hidden">
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-auto w-full" role="img" aria-label={summary}>
          {y.ticks(4).map((tick) => (
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
                {deliveryStatuses.map((status) => {
                  const count = bucket.counts[status];
                  if (count === 0) return null;
                  const top = y(base + count);
                  const height = y(base) - top;
                  base += count;
                  return (
                    <rect key={status} x={x} y={top} width={barWidth} height={Math.max(height, 1)} fill={statusColors[status]} rx={1}>
                      <title>{`${rangeFormat.format(bucket.start)} UTC: ${statusLabels[status]} ${count}`}</title>
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
      <figcaption className="text-[13px] text-fg-muted">
        {hourly ? 'Requests per hour' : 'Requests per 6 hours'}, UTC. Refused counts every request a 429 summary stands for.
      </figcaption>
    </figure>
  );
}
