import Link from 'next/link';
import { DeliveryChart, EventTypeChart } from '@/components/health/delivery-chart';
import { ExpectedIntervalForm } from '@/components/health/expected-interval-form';
import { HealthBadge } from '@/components/health/health-badge';
import { dateTimeFormat, sentence } from '@/components/format';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import { formatInterval } from '@/lib/domain/health/classify';
import { statsWindows, type DeliveryStats, type StatsWindow } from '@/lib/domain/health/service';
import type { WebhookView } from '@/lib/domain/webhooks/service';

export type HealthChart = 'status' | 'types';

/** Links that switch one setting of the chart, the current one marked. */
function Switcher<T extends string>({ label, options, current, href }: { label: string; options: [T, string][]; current: T; href: (value: T) => string }) {
  return (
    <div role="group" aria-label={label} className="inline-flex rounded-lg border border-line p-0.5">
      {options.map(([value, text]) => (
        <Link
          key={value}
          href={href(value)}
          scroll={false}
          aria-current={current === value ? 'true' : undefined}
          className={cn(
            'rounded-md px-2.5 py-1 text-[13px] font-medium focus-visible:outline-2 focus-visible:outline-accent-600',
            current === value ? 'bg-accent-50 text-accent-700' : 'text-fg-muted hover:text-fg',
          )}
        >
          {text}
        </Link>
      ))}
    </div>
  );
}

/** The webhook page's Health card: state, last accepted delivery, the expected interval and the delivery chart, by status or by event type. */
export function HealthCard({
  webhook,
  stats,
  chart,
  chartHref,
  factorySlug,
  manage,
}: {
  webhook: WebhookView;
  stats: DeliveryStats;
  chart: HealthChart;
  chartHref: (window: StatsWindow, chart: HealthChart) => string;
  factorySlug: string;
  manage: boolean;
}) {
  const { health } = webhook;
  // The split by type is offered once the period holds a typed delivery.
  const typed = stats.typeSeries.some((type) => type !== '');
  const shown: HealthChart = typed ? chart : 'status';
  const switcher = (
    <div className="flex flex-wrap items-center gap-2">
      {typed ? (
        <Switcher
          label="Chart by"
          options={[
            ['status', 'By status'],
            ['types', 'By event type'],
          ]}
          current={shown}
          href={(value) => chartHref(stats.window, value)}
        />
      ) : null}
      <Switcher
        label="Chart period"
        options={(Object.keys(statsWindows) as StatsWindow[]).map((window) => [window, statsWindows[window].label])}
        current={stats.window}
        href={(window) => chartHref(window, shown)}
      />
    </div>
  );
  return (
    <Card role="region" aria-labelledby="health-title">
      <CardHeader title={<span id="health-title">Health and deliveries</span>} actions={switcher} />
      <CardBody className="flex flex-col gap-5">
        <div className="flex flex-col gap-1.5">
          <div className="flex flex-wrap items-center gap-2">
            <HealthBadge state={health.state} />
            <span className="text-fg-muted">{sentence(health.reason)}</span>
          </div>
          <p className="text-[13px] text-fg-muted">
            {health.lastAcceptedAt ? `Last accepted delivery: ${dateTimeFormat.format(health.lastAcceptedAt)}` : 'No delivery accepted yet'}
            {' · '}
            {webhook.expectedIntervalSeconds ? `Expected at least every ${formatInterval(webhook.expectedIntervalSeconds)}` : 'No expected interval'}
          </p>
        </div>
        {shown === 'types' ? <EventTypeChart stats={stats} /> : <DeliveryChart stats={stats} />}
        {manage ? (
          <div className="border-t border-line pt-4">
            <p className="mb-3 text-[13px] text-fg-muted">
              For a sender on a schedule (a cron job, a nightly export): with no accepted delivery for longer than this, the webhook is Silent and the factory’s notifications say so.
            </p>
            <ExpectedIntervalForm factorySlug={factorySlug} uid={webhook.uid} seconds={webhook.expectedIntervalSeconds} />
          </div>
        ) : null}
      </CardBody>
    </Card>
  );
}
