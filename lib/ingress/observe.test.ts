import { describe, expect, it } from 'vitest';
import { note, observeIngress } from '@/lib/ingress/observe';
import { metrics } from '@/lib/platform/metrics';

const counted = async (outcome: string) =>
  (await metrics().ingressRequests.get()).values.filter((value) => value.labels.outcome === outcome).reduce((sum, value) => sum + value.value, 0);
const timed = async (outcome: string) =>
  (await metrics().ingressDuration.get()).values.find((value) => value.labels.outcome === outcome && value.metricName?.endsWith('_count'))?.value ?? 0;

describe('the ingress metrics', () => {
  it('counts a pipeline that throws (answered 500 by Next) as an error, with its time, and throws on', async () => {
    const [before, beforeTimed] = [await counted('error'), await timed('error')];
    const request = new Request('http://tripline.test/webhooks/w/wh_x', { method: 'POST' });
    const failure = new Error('a constraint the code did not expect');
    await expect(
      observeIngress(request, 'wh_x', async () => {
        note(request, { authMode: 'token' });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await counted('error')).toBe(before + 1);
    expect(await timed('error')).toBe(beforeTimed + 1);
  });

  it('counts a 500 answered by the pipeline as an error, not as an unknown webhook', async () => {
    const [errors, notFound] = [await counted('error'), await counted('not_found')];
    const request = new Request('http://tripline.test/webhooks/w/wh_y', { method: 'POST' });
    const response = await observeIngress(request, 'wh_y', async () => new Response(null, { status: 500 }));
    expect(response.status).toBe(500);
    expect(await counted('error')).toBe(errors + 1);
    expect(await counted('not_found')).toBe(notFound);
  });
});
