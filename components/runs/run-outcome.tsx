import Link from 'next/link';
import { preciseDateTimeFormat } from '@/components/format';
import { textLinkStyle } from '@/components/ui/text-link';
import { outcomeSegments, type RunOutcome } from '@/lib/domain/runs/outcome';
import type { OutcomeRefs } from '@/lib/domain/runs/service';
import { deliveryPath, runPath } from './format';

// A run's outcome under run control as a sentence, with the run and the
// delivery it names as links where the reader can follow them (a delivery of
// a deleted webhook, or a run or delivery since pruned, shows as an ID).

const idStyle = 'font-mono text-[13px]';

export function OutcomeSentence({ factorySlug, outcome, refs, className }: { factorySlug: string; outcome: RunOutcome; refs: OutcomeRefs; className?: string }) {
  const segments = outcomeSegments(outcome);
  return (
    <span className={className}>
      {segments.map((segment, i) => {
        if (typeof segment === 'string') return <span key={i}>{segment}</span>;
        if ('time' in segment) {
          return (
            <time key={i} dateTime={segment.time.toISOString()} title={segment.time.toISOString()}>
              {preciseDateTimeFormat.format(segment.time)}
            </time>
          );
        }
        if ('run' in segment) {
          return refs.run ? (
            <Link key={i} href={runPath(factorySlug, { id: refs.run.id, automation: { id: refs.run.automationId } })} className={`${idStyle} ${textLinkStyle}`}>
              {segment.run}
            </Link>
          ) : (
            <span key={i} className={idStyle} title="No longer stored">
              {segment.run}
            </span>
          );
        }
        const delivery = refs.delivery;
        return delivery && !delivery.webhookDeleted ? (
          <Link key={i} href={deliveryPath(factorySlug, delivery)} title={`${delivery.deliveryId} to ${delivery.webhookName}`} className={`${idStyle} ${textLinkStyle}`}>
            {delivery.deliveryId}
          </Link>
        ) : (
          <span key={i} className={idStyle}>
            {delivery?.deliveryId ?? segment.delivery}
          </span>
        );
      })}
    </span>
  );
}
