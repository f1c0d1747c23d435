import fs from 'node:fs';
import { chromium, defineConfig } from '@playwright/test';
import { budget, ensureSpeedFactor } from './scripts/speed.mjs';

// Every timeout is a budget set on machine C, scaled by the speed factor that
// npm test measured at its start (scripts/speed.mjs; measured here when unset).
ensureSpeedFactor();

// End-to-end tests against the production build (`next build` first), over
// real HTTP, in Chromium. e2e/global-setup.ts starts the servers:
//   browser:       embedded PGlite, empty (first-run setup happens in a test)
//   api-pglite:    embedded PGlite, seeded with the CLI
//   api-postgres:  PostgreSQL (TEST_DATABASE_URL), seeded with the CLI
//
// The browser is CHROMIUM_PATH when set, else Playwright's own Chromium when
// installed, else Debian's: its headless shell (package chromium-headless-shell,
// the same engine without the full browser's window and GPU processes) when
// installed, then /usr/bin/chromium. The headless shell ran the browser specs
// in 15% less time and CPU than the full browser (docs/testing.md).

function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    if (fs.existsSync(chromium.executablePath())) return undefined;
  } catch {
    // Playwright's browser is not installed
  }
  return ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) => fs.existsSync(file));
}

const withPostgres = Boolean(process.env.TEST_DATABASE_URL);
// Ports of the servers global-setup.ts starts (E2E_PORT_BASE moves them all).
const portBase = Number(process.env.E2E_PORT_BASE ?? 3210);
export const servers = {
  browser: `http://localhost:${portBase}`,
  apiPglite: `http://localhost:${portBase + 1}`,
  apiPostgres: `http://localhost:${portBase + 2}`,
  // The lifecycle specs start servers of their own, each file on ports no other file uses (npm test
  // runs two lifecycle files at once):
  // portBase + 3: e2e/lifecycle/restart.spec.ts
  // portBase + 5: e2e/lifecycle/postgres-start.spec.ts
  // portBase + 6: e2e/lifecycle/readiness.spec.ts (its PostgreSQL on 5400 + portBase % 90)
  // portBase + 7: e2e/lifecycle/backtest-log.spec.ts
  // portBase + 8: e2e/lifecycle/notification-address.spec.ts
  // portBase + 10..12: e2e/lifecycle/postgres-concurrent-start.spec.ts
  // portBase + 20: e2e/lifecycle/embedded-backup.spec.ts
  // portBase + 30: e2e/lifecycle/readme-quickstart.spec.ts
  // portBase + 35: e2e/lifecycle/package.spec.ts
  // portBase + 40, 41: e2e/lifecycle/database-outage.spec.ts (the server, its own PostgreSQL)
  // portBase + 42: e2e/lifecycle/replay-crash.spec.ts
  // portBase + 43: e2e/lifecycle/full-disk.spec.ts
  // portBase + 44: e2e/lifecycle/tracing.spec.ts
  // portBase + 45, 46: the nginx of e2e/api/ip-allowlist.spec.ts (api-pglite, api-postgres)
  // portBase + 47: e2e/lifecycle/run-control-restart.spec.ts
  // portBase + 48, 49: e2e/lifecycle/connections-recovery.spec.ts
  // portBase + 50: e2e/lifecycle/crash.spec.ts
  // portBase + 51: e2e/lifecycle/listen-restart.spec.ts
  // portBase + 52: e2e/lifecycle/shutdown.spec.ts
  apiPostgresB: `http://localhost:${portBase + 4}`,
};

const firstStart = ['lifecycle/package.spec.ts', 'lifecycle/readme-quickstart.spec.ts'];

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/playwright',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  forbidOnly: process.env.CI === 'true',
  retries: 0,
  timeout: budget(60_000),
  expect: { timeout: budget(10_000) },
  reporter: [['list'], ['json']],
  use: {
    // A failed test keeps its trace: each action with the page's DOM before and after (and the
    // screenshot below). Without the trace's screencast: recording it took a quarter of the browser
    // specs' CPU (docs/testing.md).
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        // Each test's pages live seconds: V8's optimizing compilers (Maglev, TurboFan) spent more
        // compiling the dashboard's scripts than they saved. Without them, three browser specs took
        // 73 CPU-seconds in two runs each against 78 and 79 (2026-11-30; docs/testing.md).
        '--js-flags=--no-opt --no-maglev',
      ],
    },
  },
  projects: [
    {
      name: 'browser',
      testMatch: 'browser/**/*.spec.ts',
      use: { baseURL: servers.browser, viewport: { width: 1366, height: 850 } },
    },
    // Lifecycle specs start servers of their own (and the CLI before them), which a slow machine can
    // take most of a minute for; a spec that needs longer still says so itself.
    { name: 'lifecycle', testMatch: 'lifecycle/**/*.spec.ts', testIgnore: firstStart, timeout: budget(180_000) },
    // A newcomer's first start: the README's quick start, and the npm package packed and installed into an
    // empty folder. npm test runs them in the API specs' run, beside the browser journeys and the lifecycle specs.
    { name: 'package', testMatch: firstStart },
    { name: 'api-pglite', testMatch: 'api/**/*.spec.ts', use: { baseURL: servers.apiPglite } },
    ...(withPostgres
      ? [{ name: 'api-postgres', testMatch: ['api/**/*.spec.ts', 'api-postgres/**/*.spec.ts'], use: { baseURL: servers.apiPostgres } }]
      : []),
    // Last: the logs of everything above hold no secret (e2e/logs).
    { name: 'logs', testMatch: 'logs/**/*.spec.ts', dependencies: ['browser', 'lifecycle', 'package', 'api-pglite', ...(withPostgres ? ['api-postgres'] : [])] },
  ],
});
