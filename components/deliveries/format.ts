import type { BadgeTone } from '@/components/ui/badge';
import type { DeliveryStatusFilter } from '@/lib/domain/deliveries/schemas';

// Presentation of delivery log entries, shared by the log table and the entry page.

export type AnyDeliveryStatus = DeliveryStatusFilter;

export const deliveryStatusTones: Record<AnyDeliveryStatus, BadgeTone> = {
  accepted: 'success',
  duplicate: 'neutral',
  rejected_auth: 'danger',
  rejected_invalid_json: 'danger',
  rejected_too_large: 'danger',
  handshake: 'info',
  refused: 'warning',
  refused_address: 'danger',
};

/** How the delivery ID was chosen (docs/decisions/0028-delivery-identity.md), in words. */
export const identitySourceLabels: Record<string, string> = {
  configured_header: 'Delivery ID header',
  provider_header: 'Provider delivery header',
  provider_body: 'Provider event ID in the body',
  service_header: 'X-Service-Delivery-Id',
  body_hash: 'Hash of the body',
  request_id: 'Request ID (no sender ID, body not read)',
};

const integer = new Intl.NumberFormat('en');
const oneDecimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

/** "512 B", "1.2 KB", "256 KB" (1 KB = 1,024 bytes, as the ingress limit counts). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${integer.format(bytes)} B`;
  if (bytes < 1024 * 1024) return `${oneDecimal.format(bytes / 1024)} KB`;
  return `${oneDecimal.format(bytes / (1024 * 1024))} MB`;
}

/** "1 byte", "1,234 bytes". */
export function formatExactBytes(bytes: number): string {
  return `${integer.format(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** "42 s", "2 min", "3 h", "5 days"; null past 30 days. */
function span(seconds: number): string | null {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h`;
  const days = Math.floor(hours / 24);
  if (days <= 30) return `${days} ${days === 1 ? 'day' : 'days'}`;
  return null;
}

/** "just now", "42 s ago", "2 min ago", "3 h ago", "5 days ago"; null past 30 days (the date says it). */
export function relativeTime(date: Date, now: number = Date.now()): string | null {
  const seconds = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (seconds < 5) return 'just now';
  const text = span(seconds);
  return text ? `${text} ago` : null;
}

/** A time to come: "now" (or past), "in 42 s", "in 14 min", "in 3 h"; null past 30 days. */
export function timeUntil(date: Date, now: number = Date.now()): string | null {
  const seconds = Math.round((date.getTime() - now) / 1000);
  if (seconds < 5) return 'now';
  const text = span(seconds);
  return text ? `in ${text}` : null;
}
