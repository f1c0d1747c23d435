// The ingress limits. "256 KB" is read as 256 × 1,024 bytes (KiB), the way
// HTTP servers and most webhook senders count; the limit is exact: a body of
// 262,144 bytes is accepted, 262,145 bytes is 413.
export const MAX_BODY_BYTES = 256 * 1024;

// Sender-set delivery IDs longer than this, or with characters outside
// printable ASCII, are not used verbatim (see identity.ts).
export const MAX_DELIVERY_ID_LENGTH = 200;

export const RATE_WINDOW_SECONDS = 60;
