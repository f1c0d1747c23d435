import { env } from '@/lib/platform/env';

export const TOKEN_PLACEHOLDER = '{token}';

/** What a webhook's UID can look like: any other ingress path is answered 404 before any lookup. */
export const UID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The ingress URL of a webhook. For url_token webhooks the secret is the
 * path segment after the UID; pass it only in the creation or rotation
 * result, everywhere else the URL shows the {token} placeholder.
 */
export function ingressUrl(uid: string, authMode: string, token?: string): string {
  const base = `${env().baseUrl}/webhooks/w/${uid}`;
  return authMode === 'url_token' ? `${base}/${token ?? TOKEN_PLACEHOLDER}` : base;
}
