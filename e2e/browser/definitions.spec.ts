import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { completeFirstRunIfNeeded, createWebhook, screenshot, setUpFactory } from './helpers';

// Factory as code in the dashboard: switching a factory to managed
// definition files, a webhook created in the dashboard showing its file, and
// the same factory connected to a real local git repository (the test and
// the server share this machine), whose dashboard shows the applied commit,
// no create button, and the problems of a broken commit before it applies.

const admin = { name: 'Dana Defs', email: 'dana@defs.test', password: 'dana password 123' };
const viewer = { name: 'Vic Viewer', email: 'vic@defs.test', password: 'vic password 1234' };
const factory = { name: 'Code Works', slug: 'code-works' };
const settingsPath = `/f/${factory.slug}/settings`;
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

function gitRepository() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tripline-e2e-defs-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@defs.test', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '--quiet', '--initial-branch=main');
  mkdirSync(path.join(dir, 'webhooks'));
  return {
    dir,
    commit: (files: Record<string, string>, message: string) => {
      for (const [file, content] of Object.entries(files)) writeFileSync(path.join(dir, file), content);
      git('add', '--all');
      git('commit', '--quiet', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

test.describe.serial('factory as code', () => {
  let page: Page;
  const repo = gitRepository();

  test.beforeAll(async ({ browser }) => {
    await completeFirstRunIfNeeded(browser);
    page = await setUpFactory(browser, { admin, factory, member: viewer, role: 'viewer' });
  });

  test.afterAll(async () => {
    await page.context().close();
    repo.cleanup();
  });

  test('switching to managed definition files; a webhook created in the dashboard shows its file', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(settingsPath);
    await expect(page.getByRole('radio', { name: /^Dashboard/ })).toBeChecked();
    await page.getByRole('radio', { name: /^Managed definition files/ }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('heading', { name: 'Definition files', exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'No definition files' })).toBeVisible();

    await page.goto(webhooksPath);
    await expect(page.getByRole('status').filter({ hasText: 'Kept in definition files' })).toContainText('renaming is deleting it and creating another');
    await page.getByRole('link', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('deploys');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByRole('heading', { name: 'deploys', level: 1 })).toBeVisible();

    const file = page.getByLabel('webhooks/deploys.yaml');
    await expect(file).toContainText('authMode: token');
    await expect(file).toContainText('secretName: DEPLOYS_WEBHOOK_SECRET');
    await expect(page.getByText('this webhook cannot be renamed')).toBeVisible();
    await screenshot(page, 'definitions-webhook-file');

    await page.goto(settingsPath);
    await expect(page.getByLabel('webhooks/deploys.yaml')).toContainText('secretName: DEPLOYS_WEBHOOK_SECRET');
    const download = await page.request.get(`${settingsPath}/definitions-archive`);
    expect(download.status()).toBe(200);
    expect(download.headers()['content-disposition']).toBe(`attachment; filename="${factory.slug}-definitions.tar.gz"`);
    expect([...(await download.body()).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    await screenshot(page, 'definitions-settings-managed');
  });

  test('a repository on an internal address is refused next to the field, and nothing connects to it', async () => {
    const connections: number[] = [];
    const listener = http.createServer((_request, response) => response.end('INTERNAL BANNER'));
    listener.on('connection', () => connections.push(Date.now()));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      await page.goto(settingsPath);
      await page.getByRole('radio', { name: /^Git repository/ }).check();
      const field = page.getByRole('textbox', { name: 'Repository' });
      await field.fill(`https://127.0.0.1:${port}/defs.git`);
      await page.getByRole('button', { name: 'Check repository' }).click();
      await expect(field).toHaveAttribute('aria-invalid', 'true');
      await expect(page.getByRole('alert').filter({ hasText: 'Refused: private address' })).toBeVisible();
      await screenshot(page, 'definitions-repository-refused');

      // This server allows folders on the server (TRIPLINE_REPOSITORY_ALLOW=file), not plain http.
      await field.fill(`http://127.0.0.1:${port}/defs.git`);
      await page.getByRole('button', { name: 'Check repository' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Refused: scheme not allowed' })).toBeVisible();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      expect(connections).toEqual([]);
      await expect(page.getByRole('radio', { name: /^Managed definition files/ })).toHaveAccessibleName(/Current/);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test('connecting a git repository shows the plan, applies it, and the webhooks become read-only', async () => {
    const first = repo.commit(
      {
        'webhooks/deploys.yaml': 'authMode: token\nsecretName: DEPLOYS_WEBHOOK_SECRET\ndeliveryIdHeader: X-Deploy-Id\n',
        'webhooks/nightly.yaml': 'authMode: url_token\nsecretName: DEPLOYS_WEBHOOK_SECRET\n',
      },
      'Webhooks of Code Works',
    );
    await page.goto(settingsPath);
    await page.getByRole('radio', { name: /^Git repository/ }).check();
    await page.getByRole('textbox', { name: 'Repository' }).fill(repo.dir);
    await expect(page.getByLabel('Production branch')).toHaveValue('main');
    await page.getByRole('button', { name: 'Check repository' }).click();

    const dialog = page.getByRole('dialog', { name: 'Apply this commit?' });
    await expect(dialog).toContainText(first.slice(0, 12));
    const changes = dialog.getByRole('list', { name: 'Planned changes' });
    await expect(changes.getByRole('listitem').filter({ hasText: 'Update' })).toContainText('deliveryIdHeader: (none) → x-deploy-id');
    await expect(changes.getByRole('listitem').filter({ hasText: 'Create' })).toContainText('nightly');
    await expect(changes.getByRole('listitem').filter({ hasText: 'Delete' })).toHaveCount(0);
    await screenshot(page, 'definitions-repository-plan');

    // While the dialog is open, another tab creates a webhook: the plan shown would delete it unannounced, so Apply applies
    // nothing and the dialog shows the plan as it is now.
    const other = await page.context().newPage();
    await createWebhook(other, factory.slug, 'late-arrival');
    await other.close();
    await dialog.getByRole('button', { name: `Apply ${first.slice(0, 7)}` }).click();
    await expect(dialog.getByRole('alert').filter({ hasText: 'The plan changed' })).toContainText('webhooks or team secrets changed since you checked');
    await expect(changes.getByRole('listitem').filter({ hasText: 'Delete' })).toContainText('late-arrival');
    await screenshot(page, 'definitions-repository-plan-changed');
    await dialog.getByRole('button', { name: `Apply ${first.slice(0, 7)}` }).click();
    await expect(dialog).toHaveCount(0);

    await expect(page.getByTestId('applied-commit')).toHaveText(first.slice(0, 12));
    await expect(page.getByLabel('webhooks/nightly.yaml')).toBeVisible();
    await screenshot(page, 'definitions-settings-repository');

    await page.goto(webhooksPath);
    await expect(page.getByRole('status').filter({ hasText: 'Defined in a git repository' })).toContainText(first.slice(0, 12));
    await expect(page.getByRole('link', { name: 'nightly', exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: 'New webhook' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'New webhook' })).toHaveCount(0);
    await screenshot(page, 'definitions-webhooks-repository');

    await page.getByRole('link', { name: 'deploys', exact: true }).click();
    await expect(page.getByRole('switch', { name: /Enabled/ })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Delete webhook' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /Rotate/ })).toHaveCount(0);
  });

  test('Sync now shows the problems of a broken commit and applies nothing', async () => {
    const broken = repo.commit({ 'webhooks/nightly.yaml': 'authMode: url_token\nsecretName: MISSING_SECRET\ncolour: blue\n' }, 'Break nightly');
    await page.goto(settingsPath);
    const dialog = page.getByRole('dialog', { name: 'This commit cannot apply' });
    // The 60-second poll may be syncing this very commit: the page then says so, and, as a person
    // would, the test tries again once it has finished.
    await expect(async () => {
      await page.getByRole('button', { name: 'Sync now' }).click();
      await expect(dialog).toBeVisible({ timeout: budget(5_000) });
    }).toPass({ timeout: budget(60_000) });
    await expect(dialog).toContainText(broken.slice(0, 12));
    const problems = dialog.getByRole('list', { name: 'Problems' });
    await expect(problems).toContainText('unknown key "colour"');
    await screenshot(page, 'definitions-repository-broken');
    await dialog.getByText('Close', { exact: true }).click();
    await expect(page.getByTestId('applied-commit')).not.toHaveText(broken.slice(0, 12));
  });
});
