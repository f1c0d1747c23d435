// The ingress limits. "256 KB" is read as 256 × 1,024 bytes (KiB), the way
// HTTP servers and most webhook senders count; the limit is exact: a body of
// 262,144 bytes is accepted, 262,145 bytes is 413.
export const MAX_BODY_BYTES = 256 * 1024;

// Sender-set delivery IDs longer than this, or with characters outside
// printable ASCII, are not used verbatim (see identity.ts).
export const MAX_DELIVERY_ID_LENGTH = 200;

export const RATE_WINDOW_SECONDS = 60;

// Accepted deliveries waiting for the database (lib/ingress/group-commit.ts):
// past 1,000 of them or 64 MiB of their bodies, or after 10 s in the queue (a
// sender's usual timeout: GitHub and Stripe wait 10 s), a delivery is
// answered 503 with Retry-After instead of being held in memory. Nothing of it
// was written, so the sender's retry is safe.
export const INGRESS_WAITING = { maxItems: 1_000, maxWeight: 64 * 1024 * 1024, maxWaitMs: 10_000 };
