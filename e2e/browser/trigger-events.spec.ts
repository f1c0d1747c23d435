import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { axeViolations, screenshot, useFactoryPage } from './helpers';

// A trigger's Event types in the automation editor: GitHub deliveries of two
// types arrive, the editor offers the types the webhook has seen, one click
// lists one, the live count follows, a wildcard written wrong is explained
// next to the field, and the saved automation starts only on that type. The
// editor passes axe-core's WCAG 2.1 AA checks at 1440 px and at 390 px.

const admin = { name: 'Eve Admin', email: 'eve@events.test', password: 'eve password 1234' };
const viewer = { name: 'Vic Viewer', email: 'vic@events.test', password: 'vic password 1234' };
const factory = { name: 'Event Works', slug: 'event-works' };

test.describe.serial('event types in the automation editor', () => {
  let page: Page;
  let hook = { url: '', secret: '', uid: '' };

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  const send = async (request: Page['request'], event: string, payload: unknown, id: string) => {
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`;
    const response = await request.post(hook.url, {
      data: Buffer.from(body),
      headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': event, 'X-GitHub-Delivery': id, 'X-Hub-Signature-256': signature },
    });
    expect(response.status()).toBe(202);
  };

  test('the editor completes Event types from the types the webhook has seen, and the automation starts only on them', async () => {
    await page.goto(`/f/${factory.slug}/automations/webhooks/new`);
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('github-prs');
    await form.getByRole('radio', { name: 'Provider signature' }).check();
    await form.getByLabel('Provider scheme').selectOption({ label: 'GitHub' });
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    const url = await page.getByLabel('Ingress URL').inputValue();
    hook = { url, secret: await page.getByLabel('Secret', { exact: true }).inputValue(), uid: new URL(url).pathname.split('/').at(-1)! };

    await send(page.request, 'pull_request', { action: 'opened', number: 3, pull_request: { number: 3 } }, 'pr-opened-3');
    await send(page.request, 'pull_request_review', { action: 'submitted', pull_request: { number: 3 } }, 'pr-review-3');

    await page.goto(`/f/${factory.slug}/automations/new?webhook=${hook.uid}`);
    const editor = page.getByRole('form', { name: 'New automation' });
    await editor.getByRole('textbox', { name: 'Name' }).fill('Review opened PRs');
    await editor.getByLabel('Prompt').fill('Review the pull request in event-payload.json.');
    const trigger = page.locator('li[aria-label="Trigger 1"]');
    const events = trigger.getByRole('textbox', { name: 'Event types' });
    const seen = trigger.getByRole('group', { name: 'Event types seen on this webhook' });
    await expect(seen.getByRole('button')).toHaveText(['pull_request.opened', 'pull_request_review.submitted']);
    const count = trigger.getByRole('status', { name: 'Live count' });
    await expect(count).toContainText('No filter: matches 2 of the last 2 deliveries');

    await events.fill('pull*');
    await expect(events).toHaveAttribute('aria-invalid', 'true');
    await expect(trigger).toContainText('"*" stands for a whole segment, so "pull*" cannot hold it');
    await events.fill('');
    await seen.getByRole('button', { name: /^Add event type pull_request\.opened/ }).click();
    await expect(events).toHaveValue('pull_request.opened');
    await expect(seen.getByRole('button')).toHaveText(['pull_request_review.submitted']);
    await expect(count).toContainText('Matches 1 of the last 2 deliveries');

    for (const [size, viewport] of [
      ['1440', { width: 1440, height: 900 }],
      ['390', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await trigger.scrollIntoViewIfNeeded();
      await screenshot(page, `automation-event-types-${size}`);
      expect(await axeViolations(page, `${size} px`)).toEqual([]);
    }
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.getByRole('button', { name: 'Create automation' }).click();
    await expect(page).toHaveURL(new RegExp(`/f/${factory.slug}/automations/(?!new)[^/?]+$`));
    await expect(page.getByRole('textbox', { name: 'Event types' })).toHaveValue('pull_request.opened');

    // A new delivery of each type: only the opened pull request starts a run.
    await send(page.request, 'pull_request', { action: 'opened', number: 4, pull_request: { number: 4 } }, 'pr-opened-4');
    await send(page.request, 'pull_request_review', { action: 'submitted', pull_request: { number: 4 } }, 'pr-review-4');
    await page.reload();
    const rows = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('pr-opened-4');
  });

  test('Filter on this on a delivery’s event type and on a request header adds them to the trigger, merged and unsaved', async () => {
    await page.goto(`/f/${factory.slug}/automations/webhooks/${hook.uid}`);
    await page.getByRole('region', { name: 'Deliveries', exact: true }).getByRole('link', { name: 'View delivery pr-review-4' }).click();
    const type = page.locator('dd', { hasText: 'pull_request_review.submitted' });
    await type.hover();
    await type.getByRole('button', { name: 'Filter on this event type' }).click();
    const menu = page.getByRole('group', { name: 'Filter on this' });
    await expect(menu).toContainText('Filter on event type pull_request_review.submitted');
    await screenshot(page, 'delivery-filter-on-event-type');
    await menu.getByRole('link', { name: 'Add to a trigger of Review opened PRs' }).click();
    const trigger = page.locator('li[aria-label="Trigger 1"]');
    await expect(trigger.getByRole('textbox', { name: 'Event types' })).toHaveValue('pull_request.opened, pull_request_review.submitted');
    await expect(page.getByText('Unsaved changes')).toBeVisible();
    await expect(trigger.getByRole('status', { name: 'Live count' })).toContainText('Matches 4 of the last 4 deliveries');

    // A header: the signature header is kept redacted, so it offers nothing; the event header does.
    await page.goBack();
    const headers = page.getByRole('table', { name: 'Request headers' });
    await expect(headers.getByRole('row', { name: /x-hub-signature-256/ }).getByRole('button')).toHaveCount(0);
    const event = headers.getByRole('row', { name: /x-github-event/ });
    await event.hover();
    await event.getByRole('button', { name: 'Filter on header x-github-event' }).click();
    await expect(menu).toContainText('Filter on header x-github-event = "pull_request_review"');
    await menu.getByRole('link', { name: 'Add to a trigger of Review opened PRs' }).click();
    const headerFilter = trigger.getByRole('textbox', { name: 'Header filter' });
    await expect(headerFilter).toHaveValue(/"x-github-event": "pull_request_review"/);
    // The saved trigger is unchanged until the editor saves.
    await page.goto(new URL(page.url()).pathname);
    await expect(trigger.getByRole('textbox', { name: 'Event types' })).toHaveValue('pull_request.opened');
  });
});
