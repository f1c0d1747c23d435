import { expect, test, type Page } from '@playwright/test';
import { AxeBuilder } from '@axe-core/playwright';
import { createWebhook, screenshot, useFactoryPage } from './helpers';

// The custom response on the webhook page, on this spec's own factory: the
// admin sets it in the Response form (a bad body is refused next to the
// field), sees it in the webhook's details, and a sender gets it; a 204 has
// no body fields; Tripline's answer comes back.

const admin = { name: 'Rae Admin', email: 'rae@answers.test', password: 'rae password 1234' };
const viewer = { name: 'Vic Viewer', email: 'vic@answers.test', password: 'vic password 1234' };
const factory = { name: 'Answer Works', slug: 'answer-works' };

test.describe.serial('a webhook’s custom response', () => {
  let page: Page;

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('the admin sets it on the webhook page, sees a bad body refused at the field, and the sender gets it', async ({ request }) => {
    const hook = await createWebhook(page, factory.slug, 'adyen');
    await page.goto(`/f/${factory.slug}/automations/webhooks/${hook.uid}`);
    const shown = page.locator('dt', { hasText: /^Response$/ }).locator('xpath=following-sibling::dd[1]');
    await expect(shown).toContainText('202 Accepted');

    const form = page.getByRole('form', { name: 'Response' });
    await expect(form.getByRole('radio', { name: 'Tripline’s answer' })).toBeChecked();
    await expect(form.getByLabel('Body')).toHaveCount(0);
    await form.getByRole('radio', { name: 'A custom response' }).check();
    await form.getByLabel('Status').selectOption('200');
    await form.getByLabel('Content type').selectOption('text/plain; charset=utf-8');
    const body = form.getByRole('textbox', { name: 'Body' });

    await body.fill('[accepted] {{delivery}}');
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(body).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toHaveText('Unknown placeholder {{delivery}}: the only placeholder is {{delivery_id}}');

    await body.fill('é'.repeat(513));
    await expect(form.getByText('1,026 / 1,024 bytes')).toBeVisible();
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(form.getByRole('alert')).toHaveText('Use at most 1,024 bytes (this body is 1,026 bytes of UTF-8)');

    await form.getByLabel('Content type').selectOption('application/json');
    await body.fill('{"notificationResponse": "[accepted]", "id": {{delivery_id}}}');
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(form.getByRole('alert')).toHaveText('Enter valid JSON, with {{delivery_id}} inside a string, as in {"id": "{{delivery_id}}"}');
    await screenshot(page, 'webhook-custom-response-error');
    // The open form, with its error, meets WCAG 2.1 AA (e2e/browser/responsive.spec.ts checks the page as it loads).
    const axe = await new AxeBuilder({ page }).include('form[aria-label="Response"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
    // Nothing was saved.
    await expect(shown).toContainText('202 Accepted');

    await body.fill('{"notificationResponse": "[accepted]", "id": "{{delivery_id}}"}');
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(form.getByText('Saved. New deliveries get this response.')).toBeVisible();
    await expect(body).not.toHaveAttribute('aria-invalid');
    await expect(shown).toContainText('200 OK · application/json');
    await expect(shown.getByLabel('Response body')).toHaveText('{"notificationResponse": "[accepted]", "id": "{{delivery_id}}"}');
    await screenshot(page, 'webhook-custom-response');

    const delivered = await request.post(hook.url, { data: { live: 'false' }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Request-Id': 'r-1' } });
    expect(delivered.status()).toBe(200);
    expect(delivered.headers()['content-type']).toBe('application/json');
    expect(Object.keys(await delivered.json())).toEqual(['notificationResponse', 'id']);

    // After a reload the form holds what is saved.
    await page.reload();
    await expect(form.getByRole('radio', { name: 'A custom response' })).toBeChecked();
    await expect(form.getByLabel('Status')).toHaveValue('200');
    await expect(body).toHaveValue('{"notificationResponse": "[accepted]", "id": "{{delivery_id}}"}');
  });

  test('a 204 has no content type or body; Tripline’s answer comes back', async ({ request }) => {
    const hook = await createWebhook(page, factory.slug, 'quiet');
    await page.goto(`/f/${factory.slug}/automations/webhooks/${hook.uid}`);
    const form = page.getByRole('form', { name: 'Response' });
    const shown = page.locator('dt', { hasText: /^Response$/ }).locator('xpath=following-sibling::dd[1]');
    const send = () => request.post(hook.url, { data: { n: Date.now() }, headers: { Authorization: `Bearer ${hook.secret}` } });

    await form.getByRole('radio', { name: 'A custom response' }).check();
    await form.getByLabel('Status').selectOption('204');
    await expect(form.getByLabel('Content type')).toHaveCount(0);
    await expect(form.getByLabel('Body')).toHaveCount(0);
    await expect(form.getByText('A 204 response has no body and no content type.')).toBeVisible();
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(form.getByText('Saved. New deliveries get this response.')).toBeVisible();
    await expect(shown).toHaveText('204 No Content · no body');
    const quiet = await send();
    expect([quiet.status(), await quiet.text()]).toEqual([204, '']);

    await form.getByRole('radio', { name: 'Tripline’s answer' }).check();
    await form.getByRole('button', { name: 'Save response' }).click();
    await expect(form.getByText('Saved. New deliveries get Tripline’s 202 answer.')).toBeVisible();
    await expect(shown).toContainText('202 Accepted');
    expect((await send()).status()).toBe(202);
  });
});
