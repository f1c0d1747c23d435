import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createPostgresDatabase } from '../tests/support/postgres';
import { servers } from '../playwright.config';
import { METRICS_TOKEN } from './fixtures/metrics';
import { rememberSecrets, secretsFile } from './fixtures/secrets';
import { DEFINITIONS_SECRET, seedUsers } from './fixtures/seed';
import { cliAsync as cli, migratedDataDir, startServer, type RunningServer, type ServerEnv } from './servers';
import { prepareBundles } from '../tests/support/bundle';

// Starts the servers the projects in playwright.config.ts talk to, each on
// a fresh database, and seeds the API servers through the CLI, the way an
// operator would. Returns the teardown.

const root = path.resolve(import.meta.dirname, '..');

async function seed(env: ServerEnv): Promise<Record<string, string>> {
  const tokens: Record<string, string> = {};
  for (const user of seedUsers) {
    if (user.factory) {
      // Globex's owner is not the instance admin: the operator lets every account create a factory while seeding.
      await cli({ ...env, TRIPLINE_FACTORY_CREATION: 'everyone' }, ['setup', '--email', user.email, '--password-stdin', '--factory', user.factory, '--factory-name', user.factoryName ?? user.factory], user.password);
    } else {
      await cli(env, ['user', 'create', '--email', user.email, '--password-stdin'], user.password);
    }
    tokens[user.key] = await cli(env, ['token', 'create', '--email', user.email, '--name', 'e2e']);
    rememberSecrets(user.password, tokens[user.key]);
  }
  for (const user of seedUsers) {
    for (const [factory, role] of user.memberOf ?? []) {
      await cli(env, ['member', 'add', '--factory', factory, '--email', user.email, '--role', role]);
    }
  }
  // Globex keeps its webhooks as managed definition files (e2e/api/definitions.spec.ts).
  await cli(env, ['secret', 'put', '--factory', 'globex', '--name', 'ORDERS_TOKEN'], DEFINITIONS_SECRET);
  await cli(env, ['factory', 'use-managed', '--factory', 'globex']);
  return tokens;
}

/**
 * Which servers this run starts: E2E_SERVERS=browser (the browser project's),
 * api (both API projects'), api-pglite or api-postgres (one API project's),
 * none (for the lifecycle and logs projects, which start none), or unset for
 * all. Running one project, say the browser journeys, then starts only the
 * servers it needs; runs with different E2E_SERVERS can run side by side
 * (their ports differ), as `npm test` does.
 */
function wantedServers(): { browser: boolean; pglite: boolean; postgres: boolean } {
  const wanted = process.env.E2E_SERVERS ?? 'all';
  if (!['all', 'browser', 'api', 'api-pglite', 'api-postgres', 'none'].includes(wanted)) {
    throw new Error(`E2E_SERVERS must be browser, api, api-pglite, api-postgres or none, not ${wanted}`);
  }
  const api = wanted === 'all' || wanted === 'api';
  return { browser: wanted === 'all' || wanted === 'browser', pglite: api || wanted === 'api-pglite', postgres: api || wanted === 'api-postgres' };
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  // The command line, bundled once for this run's workers (tests/support/bundle.ts).
  prepareBundles();
  const wanted = wantedServers();
  if (!wanted.browser && !wanted.pglite && !wanted.postgres) return async () => {};
  const runDir = path.join(root, 'test-results', 'e2e-data', `${Date.now().toString(36)}-${process.pid}`);
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
    // Connections reach the fake GitHub on loopback (e2e/api/connections.spec.ts, e2e/browser/connections.spec.ts).
    TRIPLINE_CONNECTION_ALLOW: 'http,private',
    // Never listed, so no run may see it (e2e/api/automations.spec.ts).
    SERVER_CANARY: 'server-canary-e2e',
    // The nginx of e2e/api/ip-allowlist.spec.ts connects from this address, and only it is a trusted proxy.
    TRIPLINE_TRUSTED_PROXIES: '127.0.0.9',
    // Bulk replay at 5 deliveries a second, so a job of the 60 a webhook may receive in a minute runs long enough to watch and cancel.
    TRIPLINE_REPLAY_RATE: '5',
  };
  process.env.E2E_AGENT_LOG = common.AGENT_LOG;
  // A run of all servers begins a new list of secrets; runs of a part add to it, so the logs project checks them all.
  if (process.env.E2E_SERVERS === undefined) fs.rmSync(secretsFile, { force: true });
  rememberSecrets(common.TRIPLINE_SECRETS_KEY, common.TRIPLINE_AUTH_SECRET, METRICS_TOKEN, DEFINITIONS_SECRET);

  // The three databases are seeded and their servers started side by side: one after the
  // other, the CLI's 28 processes and four server starts took about two minutes.
  const start = async (name: string, url: string, env: ServerEnv) => {
    const server = await startServer(name, port(url), env);
    started.push(server);
    return server;
  };
  const browser = async () => {
    await start('browser', servers.browser, {
      ...common,
      TRIPLINE_DATA_DIR: path.join(runDir, 'browser'),
      TRIPLINE_BASE_URL: servers.browser,
      // The browser specs connect a git repository in a local folder (e2e/browser/definitions.spec.ts), which only the operator can allow.
      TRIPLINE_REPOSITORY_ALLOW: 'file',
      // A small, short sign-in throttle, so accounts.spec.ts sees it pause and resume.
      TRIPLINE_SIGNIN_ACCOUNT_LIMIT: '3',
      TRIPLINE_SIGNIN_WINDOW_SECONDS: '15',
    });
  };
  const pglite = async () => {
    // API servers honour X-Tripline-Test-Now so signature vectors are checked at their own time.
    const env = { ...common, TRIPLINE_TEST_CLOCK: 'true', TRIPLINE_DATA_DIR: migratedDataDir('api-pglite'), TRIPLINE_BASE_URL: servers.apiPglite };
    process.env.E2E_TOKENS_API_PGLITE = JSON.stringify(await seed(env));
    process.env.E2E_PID_API_PGLITE = String((await start('api-pglite', servers.apiPglite, env)).process.pid);
  };
  const postgres = async () => {
    if (!process.env.TEST_DATABASE_URL) return;
    const database = await createPostgresDatabase('tripline_e2e');
    cleanups.push(database.drop);
    const env = {
      ...common,
      TRIPLINE_TEST_CLOCK: 'true',
      DATABASE_URL: database.url,
      TRIPLINE_DATA_DIR: path.join(runDir, 'api-postgres'),
      TRIPLINE_BASE_URL: servers.apiPostgres,
    };
    process.env.E2E_TOKENS_API_POSTGRES = JSON.stringify(await seed(env));
    process.env.E2E_API_POSTGRES_DATABASE_URL = database.url;
    // The CLI's environment for this server's database (its keys), for specs that run a command beside it.
    process.env.E2E_API_POSTGRES_CLI_ENV = JSON.stringify(env);
    process.env.E2E_PID_API_POSTGRES = String((await start('api-postgres', servers.apiPostgres, env)).process.pid);
    // A second instance on the same database, as behind a load balancer.
    await start('api-postgres-b', servers.apiPostgresB, { ...env, TRIPLINE_DATA_DIR: path.join(runDir, 'api-postgres-b') });
  };
  const outcomes = await Promise.allSettled([...(wanted.browser ? [browser()] : []), ...(wanted.pglite ? [pglite()] : []), ...(wanted.postgres ? [postgres()] : [])]);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((server) => server.stop()));
    for (const cleanup of cleanups) await cleanup();
    throw failed.reason;
  }

  return async () => {
    await Promise.all(started.map((server) => server.stop()));
    for (const cleanup of cleanups) await cleanup();
  };
}
