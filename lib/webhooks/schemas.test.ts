import { describe, expect, it } from 'vitest';
import { suggestFreeSecretName, suggestSecretName } from '@/lib/webhooks/schemas';

// The suggestion the server names a new team secret with, and the form shows.
describe('suggestFreeSecretName', () => {
  it('suggests the plain name while it is free', () => {
    expect(suggestSecretName('github-deploys')).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET');
    expect(suggestFreeSecretName('github-deploys', new Set())).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET');
  });

  it('numbers it from 2 when it is taken', () => {
    const taken = new Set(['GITHUB_DEPLOYS_WEBHOOK_SECRET', 'GITHUB_DEPLOYS_WEBHOOK_SECRET_2']);
    expect(suggestFreeSecretName('github-deploys', taken)).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET_3');
  });
});
