import { getScheme } from '@/lib/ingress/signatures/registry';
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { verifySignature } from '@/lib/ingress/signatures/verify';
import type { LiveWebhook } from '@/lib/ingress/live';

// Authentication per mode (docs/ingress.md; docs/providers.md). Secrets are compared with
// bytesEqual: through their SHA-256 digests with timingSafeEqual, so neither
// the content nor the length of the secret leaks through timing.

export type AuthResult = { ok: true } | { ok: false; detail: string };

const failureDetail = {
  missing: 'signature headers missing',
  malformed: 'signature headers malformed',
  stale: 'signature timestamp outside the allowed window',
  mismatch: 'signature does not match',
} as const;

export function authenticate(input: {
  webhook: LiveWebhook;
  headers: Headers;
  pathToken: string | undefined;
  body: Buffer;
  now: number;
  url: string;
}): AuthResult {
  const { webhook } = input;
  if (webhook.credential === null) return { ok: false, detail: 'the webhook is waiting for its provider secret' };
  switch (webhook.authMode) {
    case 'token': {
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(input.headers.get('authorization') ?? '');
      if (!match?.[1]) return { ok: false, detail: 'no bearer token' };
      return bytesEqual(match[1], webhook.credential) ? { ok: true } : { ok: false, detail: 'wrong bearer token' };
    }
    case 'url_token':
      if (!input.pathToken) return { ok: false, detail: 'no token in the URL' };
      return bytesEqual(input.pathToken, webhook.credential) ? { ok: true } : { ok: false, detail: 'wrong URL token' };
    case 'signature': {
      if (!webhook.signatureScheme || !getScheme(webhook.signatureScheme)) return { ok: false, detail: 'unknown signature scheme' };
      const result = verifySignature(webhook.signatureScheme, {
        rawBody: input.body,
        headers: input.headers,
        secret: webhook.credential,
        now: input.now,
        url: input.url,
      });
      return result.ok ? { ok: true } : { ok: false, detail: failureDetail[result.reason] };
    }
  }
}
