import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect as baseExpect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { countEntries, nonPrivateModes } from '../../tests/support/file-modes';

// The README's quick start, followed as a newcomer would: its commands are
// taken from README.md (the fenced blocks after a `<!-- quickstart: ... -->`
// marker), not copied here, so the README cannot drift from what works.
//   run:    run as written with bash (`npm start`, then curl as a real process)
//   values: the shell variables the reader fills in from the page; the test
//           checks their names and gives them the values the page showed
//   filter: the payload filter typed into the automation form
// The dashboard steps follow the README's words. README_SCREENSHOT=1 also
// sends a few more deliveries and saves docs/images/dashboard.png.

const root = path.resolve(import.meta.dirname, '..', '..');
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 30;
const dataDir = path.join(root, 'test-results', 'e2e-data', `quickstart-${Date.now().toString(36)}`);

// A fresh server's first renders are slow on a loaded machine: generous waits,
// since what this test checks is the README's steps, not speed.
const expect = baseExpect.configure({ timeout: budget(60_000) });
test.use({ navigationTimeout: budget(120_000), actionTimeout: budget(60_000) });

type Block = { kind: 'run' | 'values' | 'filter'; text: string };

function quickStartBlocks(): Block[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  return [...section.matchAll(/<!-- quickstart: (run|values|filter) -->\n```[a-z]*\n([\s\S]*?)\n```/g)].map((match) => ({
    kind: match[1] as Block['kind'],
    text: match[2]!,
  }));
}

/** A shell as a newcomer has it: no Tripline variables of the test run's own servers. */
function freshShellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = {} as NodeJS.ProcessEnv;
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('TRIPLINE_') || name === 'DATABASE_URL' || name === 'PORT') continue;
    env[name] = value;
  }
  // Where this test's server listens and keeps its data instead of :3000 and .data/.
  return { ...env, PORT: String(port), TRIPLINE_DATA_DIR: dataDir, ...extra };
}

function runCommand(block: string, vars: Record<string, string>): string {
  return execFileSync('bash', ['-euo', 'pipefail', '-c', block], { cwd: root, env: freshShellEnv(vars), encoding: 'utf8', timeout: budget(30_000) });
}

test('the README quick start works as written, from npm start to a run', async ({ page }) => {
  test.setTimeout(budget(600_000));
  const blocks = quickStartBlocks();
  expect(blocks.map((block) => block.kind), 'the quick start blocks README.md marks').toEqual(['run', 'values', 'run', 'filter', 'run']);
  const [start, values, firstDelivery, filter, trigger] = blocks as [Block, Block, Block, Block, Block];
  expect(start.text).toMatch(/npm start$/);

  // 1. Start Tripline, exactly as written (npm start serves the build `npm test` made), under the
  // umask most shells have, in a data folder that exists already, open to all as that umask makes it.
  const umask = process.umask(0o022);
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(root, 'test-results', 'servers', 'readme-quickstart.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, 'w');
  const server: ChildProcess = spawn('bash', ['-c', start.text], { cwd: root, env: freshShellEnv(), stdio: ['ignore', log, log], detached: true });
  const base = `http://localhost:${port}`;
  try {
    await expect
      .poll(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status, { timeout: budget(180_000), intervals: [500] })
      .toBe(200);

    // 2. Create your account on the first-run page.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base);
    await expect(page).toHaveURL(/\/setup$/);
    await page.getByLabel(/^Name/).fill('Quinn Quickstart');
    await page.getByLabel('Email').fill('quinn@example.test');
    await page.getByLabel('Password').fill('quick start password');
    await page.getByLabel('Factory name').fill('Acme');
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page).toHaveURL(/\/f\/acme\/automations$/);

    // 3. Automations, tab Webhooks, New webhook: deploys, Bearer token.
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    await page.getByRole('link', { name: 'New webhook' }).first().click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('deploys');
    await expect(form.getByRole('radio', { name: 'Bearer token' })).toBeChecked();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    const shown = { URL: await page.getByLabel('Ingress URL').inputValue(), SECRET: await page.getByLabel('Secret', { exact: true }).inputValue() };
    expect(shown.URL).toMatch(new RegExp(`^${base}/webhooks/w/wh_`));
    const names = [...values.text.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]);
    expect(names, 'the variables the quick start asks the reader to keep').toEqual(Object.keys(shown));

    // 4. The first delivery: 202 with its identity, Accepted in the log; again: Duplicate.
    const answer = JSON.parse(runCommand(firstDelivery.text, shown)) as { delivery_id: string };
    expect(answer.delivery_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    await page.goto(page.url().replace(/\/new$/, ''));
    await page.getByRole('link', { name: 'deploys', exact: true }).click();
    const rows = page.getByRole('region', { name: 'Deliveries', exact: true }).locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('Accepted');
    runCommand(firstDelivery.text, shown);
    await page.reload();
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('Duplicate');
    const webhookPath = new URL(page.url()).pathname;

    // 5. An automation on deploys with the README's payload filter.
    await page.goto(`${base}/f/acme/automations`);
    await page.getByRole('link', { name: 'New automation' }).first().click();
    const automation = page.getByRole('form', { name: 'New automation' });
    await automation.getByRole('textbox', { name: 'Name' }).fill('Release notes');
    await automation.getByLabel('Prompt').fill('Write release notes for the version in event-payload.json.');
    await automation.getByLabel('Webhook').selectOption({ label: 'deploys' });
    await automation.getByLabel('Payload filter').fill(filter.text);
    await automation.getByRole('button', { name: 'Create automation' }).click();
    await expect(page.getByRole('heading', { name: 'Release notes', level: 1 })).toBeVisible();

    // 6. Trigger it: a run that succeeds, whose output is the payload cat printed.
    const triggered = JSON.parse(runCommand(trigger.text, shown)) as { delivery_id: string };
    expect(triggered.delivery_id).toMatch(/^sha256:/);
    // The page was open before the run existed: the reader reloads it (it refreshes itself while a run is queued or running).
    await page.reload();
    const runs = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr');
    await expect(runs).toHaveCount(1);
    await expect(runs.first()).toContainText('Succeeded');
    await runs.first().getByRole('link', { name: /^View/ }).click();
    await expect(page.getByRole('region', { name: 'Outcome', exact: true })).toContainText('"version": "1.0.1"');

    // What this first start keeps (the database with the account, the webhook's encrypted secret
    // and both deliveries; the generated keys) is its user's alone: folders 0700, files 0600, the
    // folder made open above included (lib/platform/private-files.ts).
    expect(countEntries(dataDir), 'the database’s files are there to check').toBeGreaterThan(100);
    expect(nonPrivateModes(dataDir).slice(0, 20), `modes in ${dataDir}`).toEqual([]);

    if (process.env.README_SCREENSHOT === '1') {
      for (const version of ['1.0.2', '1.1.0', '1.1.1']) runCommand(trigger.text.replace('1.0.1', version), shown);
      runCommand(firstDelivery.text.replace('$SECRET', 'wrong-secret'), shown);
      runCommand(trigger.text.replace('"main"', '"dev"').replace('1.0.1', '1.2.0-rc.1'), shown);
      await page.goto(`${base}${webhookPath}`);
      await expect(rows).toHaveCount(8);
      await page.screenshot({ path: path.join(root, 'docs', 'images', 'dashboard.png') });
    }
  } finally {
    if (server.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, budget(15_000)))]);
    }
    process.umask(umask);
  }
});
