import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createPostgresDatabase } from '../lib/testing/postgres';
import { servers } from '../playwright.config';
import { METRICS_TOKEN } from './fixtures/metrics';
import { rememberSecrets, secretsFile } from './fixtures/secrets';
import { DEFINITIONS_SECRET, seedUsers } from './fixtures/seed';
import { cli, startServer, type RunningServer, type ServerEnv } from './servers';

// Starts the servers the projects in playwright.config.ts talk to, each on
// a fresh database, and seeds the API servers through the CLI, the way an
// operator would. Returns the teardown.

const root = path.resolve(import.meta.dirname, '..');

function seed(env: ServerEnv): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const user of seedUsers) {
    if (user.factory) {
      // Globex's owner is not the instance admin: the operator lets every account create a factory while seeding.
      cli({ ...env, TRIPLINE_FACTORY_CREATION: 'everyone' }, ['setup', '--email', user.email, '--password-stdin', '--factory', user.factory, '--factory-name', user.factoryName ?? user.factory], user.password);
    } else {
      cli(env, ['user', 'create', '--email', user.email, '--password-stdin'], user.password);
    }
    tokens[user.key] = cli(env, ['token', 'create', '--email', user.email, '--name', 'e2e']);
    rememberSecrets(user.password, tokens[user.key]);
  }
  for (const user of seedUsers) {
    for (const [factory, role] of user.memberOf ?? []) {
      cli(env, ['member', 'add', '--factory', factory, '--email', user.email, '--role', role]);
    }
  }
  // Globex keeps its webhooks as managed definition files (e2e/api/definitions.spec.ts).
  cli(env, ['secret', 'put', '--factory', 'globex', '--name', 'ORDERS_TOKEN'], DEFINITIONS_SECRET);
  cli(env, ['factory', 'use-managed', '--factory', 'globex']);
  return tokens;
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const runDir = path.join(root, 'test-results', 'e2e-data', Date.now().toString(36));
  fs.mkdirSync(runDir, { recursive: true });
  const started: RunningServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const port = (url: string) => Number(new URL(url).port);
  const common: ServerEnv = {
    TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
    TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
    // Runs execute a real program: e2e/fixtures/agent.mjs.
    TRIPLINE_RUN_COMMAND: `"${process.execPath}" "${path.join(root, 'e2e', 'fixtures', 'agent.mjs')}"`,
    // Runs see only the variables the operator lists (and PATH, LANG, TZ, HOME).
    TRIPLINE_RUN_ENV: 'AGENT_LOG',
    AGENT_LOG: path.join(runDir, 'agent.log'),
    TRIPLINE_METRICS_TOKEN: METRICS_TOKEN,
    TRIPLINE_LOG_FORMAT: 'json',
    // Health and notifications every second, sent to the tests' local receivers (e2e/api/notifications.spec.ts).
    TRIPLINE_HEALTH_INTERVAL: '1',
    TRIPLINE_NOTIFICATION_ALLOW: 'http,private',
    // Never listed, so no run may see it (e2e/api/automations.spec.ts).
    SERVER_CANARY: 'server-canary-e2e',
  };
  process.env.E2E_AGENT_LOG = common.AGENT_LOG;
  fs.rmSync(secretsFile, { force: true });
  rememberSecrets(common.TRIPLINE_SECRETS_KEY, common.TRIPLINE_AUTH_SECRET, METRICS_TOKEN, DEFINITIONS_SECRET);

  try {
    const browserEnv = {
      ...common,
      TRIPLINE_DATA_DIR: path.join(runDir, 'browser'),
      TRIPLINE_BASE_URL: servers.browser,
      // The browser specs connect a git repository in a local folder (e2e/browser/definitions.spec.ts), which only the operator can allow.
      TRIPLINE_REPOSITORY_ALLOW: 'file',
      // A small, short sign-in throttle, so accounts.spec.ts sees it pause and resume.
      TRIPLINE_SIGNIN_ACCOUNT_LIMIT: '3',
      TRIPLINE_SIGNIN_WINDOW_SECONDS: '15',
    };
    started.push(await startServer('browser', port(servers.browser), browserEnv));

    // API servers honour X-Tripline-Test-Now so signature vectors are checked at their own time.
    const pgliteEnv = { ...common, TRIPLINE_TEST_CLOCK: 'true', TRIPLINE_DATA_DIR: path.join(runDir, 'api-pglite'), TRIPLINE_BASE_URL: servers.apiPglite };
    process.env.E2E_TOKENS_API_PGLITE = JSON.stringify(seed(pgliteEnv));
    const pgliteServer = await startServer('api-pglite', port(servers.apiPglite), pgliteEnv);
    started.push(pgliteServer);
    process.env.E2E_PID_API_PGLITE = String(pgliteServer.process.pid);

    if (process.env.TEST_DATABASE_URL) {
      const database = await createPostgresDatabase('tripline_e2e');
      cleanups.push(database.drop);
      const postgresEnv = {
        ...common,
        TRIPLINE_TEST_CLOCK: 'true',
        DATABASE_URL: database.url,
        TRIPLINE_DATA_DIR: path.join(runDir, 'api-postgres'),
        TRIPLINE_BASE_URL: servers.apiPostgres,
      };
      process.env.E2E_TOKENS_API_POSTGRES = JSON.stringify(seed(postgresEnv));
      process.env.E2E_API_POSTGRES_DATABASE_URL = database.url;
      const postgresServer = await startServer('api-postgres', port(servers.apiPostgres), postgresEnv);
      started.push(postgresServer);
      process.env.E2E_PID_API_POSTGRES = String(postgresServer.process.pid);
      // A second instance on the same database, as behind a load balancer.
      started.push(await startServer('api-postgres-b', port(servers.apiPostgresB), { ...postgresEnv, TRIPLINE_DATA_DIR: path.join(runDir, 'api-postgres-b') }));
    }
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    for (const cleanup of cleanups) await cleanup();
    throw error;
  }

  return async () => {
    await Promise.all(started.map((server) => server.stop()));
    for (const cleanup of cleanups) await cleanup();
  };
}
