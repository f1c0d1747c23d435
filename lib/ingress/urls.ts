import { env } from '@/lib/platform/env';

export const TOKEN_PLACEHOLDER = '{token}';

/**
 * The ingress URL of a webhook. For url_token webhooks the secret is the
 * path segment after the UID; pass it only in the creation or rotation
 * result, everywhere else the URL shows the {token} placeholder.
 */
export function ingressUrl(uid: string, authMode: string, token?: string): string {
  const base = `${env().baseUrl}/webhooks/w/${uid}`;
  return authMode === 'url_token' ? `${base}/${token ?? TOKEN_PLACEHOLDER}` : base;
}
