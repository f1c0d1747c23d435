export type VerifyInput = {
  /** Exactly the bytes received; never a re-serialised body. */
  rawBody: Buffer;
  /** The request's headers (case-insensitive WHATWG Headers). */
  headers: Headers;
  /** The webhook's applied credential, as stored (e.g. "whsec_..." for Standard Webhooks/Stripe). */
  secret: string;
  /** Current unix time in seconds, injected so verifiers never read the clock. */
  now: number;
  /** The public URL the sender posted to, for schemes that sign the URL (none of the core seven). */
  url?: string;
};

export type VerifyFailure = 'missing' | 'malformed' | 'stale' | 'mismatch';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export type Verifier = (input: VerifyInput) => VerifyResult;
