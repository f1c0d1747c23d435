import { Badge } from '@/components/ui/badge';
import { HistoryIcon } from '@/components/ui/icons';
import { PROVIDER_NAME, type CONNECTION_PROVIDERS } from '@/lib/domain/connections/schemas';
import { getScheme } from '@/lib/ingress/signatures/registry';

/** The sender's name for a webhook: its connection's provider, else its signature scheme's. */
export function senderName(signatureScheme: string | null, connectionProvider: (typeof CONNECTION_PROVIDERS)[number] | null | undefined): string | null {
  if (connectionProvider) return PROVIDER_NAME[connectionProvider];
  return signatureScheme ? (getScheme(signatureScheme)?.displayName ?? null) : null;
}

/**
 * Who a log entry was recovered from, for its marker: `stripe_import` is
 * always Stripe; a `provider_redelivery` came from the webhook's sender
 * (`provider`, from its connection or signature scheme). Null for a live entry.
 */
export function recoveredFrom(origin: string | null, provider: string | null): string | null {
  if (!origin) return null;
  if (origin === 'stripe_import') return 'Stripe';
  return provider ?? 'the sender';
}

/** "Recovered from GitHub": the entry reached the log by a recovery pass, not live (docs/connections.md). */
export function RecoveredBadge({ origin, provider }: { origin: string | null; provider: string | null }) {
  const from = recoveredFrom(origin, provider);
  if (!from) return null;
  return (
    <Badge tone="info" title={origin === 'stripe_import' ? 'Imported from Stripe’s API by a recovery pass' : `Sent again by ${from} when a recovery pass asked`}>
      <HistoryIcon className="size-3" />
      Recovered from {from}
    </Badge>
  );
}
