// The provider table of docs/providers.md, rendered from the registry and
// the vectors' results, so the documentation cannot drift from the code:
// providers-doc.test.ts fails when the file differs (UPDATE_DOCS=1 rewrites it).
import { describeEventTypeSource } from './event-types';
import { schemeIds, schemes, type SchemeId, type SchemeInfo } from './registry';

export type VectorTally = { valid: number; invalid: number; handshakes: number; passed: boolean };

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

function windowOf(info: SchemeInfo): string {
  if (info.timestampToleranceSeconds === null) return info.timestampRule;
  const direction = info.timestampDirection === 'both' ? '±' : 'at most ';
  return `${direction}${info.timestampToleranceSeconds} s${info.timestampDirection === 'past' ? ' old' : ''}`;
}

function status(tally: VectorTally | undefined): string {
  if (!tally || tally.valid + tally.invalid + tally.handshakes === 0) return 'no vector';
  const parts = [`${tally.valid} valid`, tally.invalid ? `${tally.invalid} invalid` : '', tally.handshakes ? `${tally.handshakes} handshake` : ''].filter(Boolean);
  return `${tally.passed ? 'pass' : 'FAIL'}: ${parts.join(', ')}`;
}

export function renderProviderTable(tallies: Partial<Record<SchemeId, VectorTally>>): string {
  const rows = schemeIds.map((id) => {
    const info: SchemeInfo = schemes[id];
    const delivery = info.deliveryIdHeader
      ? code([info.deliveryIdHeader, ...(info.deliveryIdFallbackHeaders ?? [])])
      : info.deliveryIdBodyField
        ? `none: the body's \`${info.deliveryIdBodyField}\``
        : info.bodyIsNoIdentity
          ? 'none (each request its own delivery: equal bodies may be different events)'
          : 'none (body hash)';
    const header = info.signatureHeaders.length ? code(info.signatureHeaders.slice(0, 3)) : 'in the body';
    return `| ${cell(info.displayName)} (\`${id}\`) | ${header} | ${cell(info.algorithm)} | ${cell(windowOf(info))} | ${delivery} | ${cell(info.handshake ?? '—')} | ${status(tallies[id])} |`;
  });
  return [
    '| Provider (scheme) | Signature header | Algorithm | Window | Delivery-ID header | Handshake | Vectors |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export function renderLimitations(): string {
  return schemeIds
    .map((id) => schemes[id] as SchemeInfo)
    .filter((info) => info.limitation)
    .map((info) => `- **${info.displayName}**: ${info.limitation}`)
    .join('\n');
}

/** Where each scheme's deliveries name their event type, with the provider's page it was read in. */
export function renderEventTypeTable(): string {
  const rows = schemeIds.map((id) => {
    const info: SchemeInfo = schemes[id];
    return `| ${cell(info.displayName)} (\`${id}\`) | ${cell(describeEventTypeSource(info.eventType))} | ${cell(info.eventType.source)} |`;
  });
  return ['| Provider (scheme) | Event type | Source |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Each scheme's setup as the dashboard shows it: where the URL and secret go, what arrives first, and the provider's pages. */
export function renderSetup(): string {
  return schemeIds
    .map((id) => {
      const info: SchemeInfo = schemes[id];
      const steps = info.setup.map((step, index) => `${index + 1}. ${step}`);
      const pages = info.docs?.length ? [`- Provider’s docs: ${info.docs.join(' ; ')}`] : [];
      return [`### ${info.displayName} (\`${id}\`)`, '', ...steps, '', `- The secret: ${info.secretHint}.`, `- First request: ${info.firstRequest}`, ...pages].join('\n');
    })
    .join('\n\n');
}
