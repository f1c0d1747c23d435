import { z } from 'zod';

export const notificationKinds = ['standard_webhooks', 'slack'] as const;
export type NotificationKind = (typeof notificationKinds)[number];

export const notificationKindLabels: Record<NotificationKind, string> = {
  standard_webhooks: 'Signed JSON (Standard Webhooks)',
  slack: 'Slack incoming webhook',
};

export const notificationEventTypes = [
  'webhook.failing',
  'webhook.rate_limited',
  'webhook.silent',
  'webhook.recovered',
  'webhook.secret_rotated',
  'connection.missed_deliveries',
  'connection.failing',
  'run.failed',
  'definitions.apply_failed',
  'notification.test',
] as const;
export type NotificationEventType = (typeof notificationEventTypes)[number];

export const MAX_DESTINATIONS_PER_FACTORY = 10;

export const createDestinationSchema = z.object({
  name: z.string().trim().min(1, 'Enter a name').max(64, 'Use at most 64 characters'),
  kind: z.enum(notificationKinds, { error: 'Choose standard_webhooks or slack' }),
  url: z
    .string()
    .trim()
    .min(1, 'Enter the URL that receives notifications')
    .max(2048, 'Use at most 2,048 characters')
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'Enter an https:// URL'),
});
export type CreateDestinationInput = z.input<typeof createDestinationSchema>;

/** PATCH .../notifications/destinations/{id}: pause or resume a destination. */
export const updateDestinationSchema = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) }).strict();
