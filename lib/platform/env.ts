import 'server-only';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { entryEnvShape, parseConfig } from '@/lib/platform/entry/entry-config';

// The validated environment. Every variable Tripline reads is listed here (and
// in docs/configuration.md); bad configuration fails at startup with the variable's name.

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

const repositoryAllowWords = ['http', 'git', 'file', 'private'] as const;

/** A comma-separated list of words from `allowed` (TRIPLINE_*_ALLOW), lowercased. */
/** A host name or address as a URL's host holds it (no scheme, port or path). */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

const allowList = (allowed: readonly string[]) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((value) => value.split(',').map((word) => word.trim().toLowerCase()).filter(Boolean))
      .refine((words) => words.every((word) => allowed.includes(word)), {
        error: `must be a comma-separated list of ${allowed.join(', ')} (or empty)`,
      })
      .optional(),
  );

/**
 * What repository locations dashboard and API users may have the server
 * fetch, beyond https:// and ssh:// to public addresses (TRIPLINE_REPOSITORY_ALLOW).
 * The CLI, the operator's own tool, may use every kind.
 */
export type RepositoryAccess = {
  /** Plain http:// URLs. */
  http: boolean;
  /** git:// URLs (git's unauthenticated daemon protocol). */
  git: boolean;
  /** file:// URLs and absolute paths on the server. */
  file: boolean;
  /** Hosts that resolve to loopback, private, link-local, unique-local, metadata or other non-public addresses. */
  private: boolean;
};

/** Exported for tests/docs-sync.test.ts, which keeps docs/configuration.md's table in step. */
export const envSchema = z.object({
  // PORT, TRIPLINE_LISTEN_ADDRESS, TRIPLINE_TRUSTED_PROXIES, TRIPLINE_SHUTDOWN_*: read by the server entry too.
  ...entryEnvShape,
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection URL')
      .optional(),
  ),
  TRIPLINE_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('.data')),
  TRIPLINE_BASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .optional(),
  ),
  TRIPLINE_SECRETS_KEY: optionalString,
  TRIPLINE_AUTH_SECRET: optionalString,
  TRIPLINE_DELIVERY_RATE_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(60)),
  TRIPLINE_AUTH_FAILURE_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(20)),
  TRIPLINE_UNAUTHENTICATED_LOG_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(60)),
  TRIPLINE_REPOSITORY_SYNC_INTERVAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(86_400, 'must be at most 86400 seconds').default(60),
  ),
  TRIPLINE_REPOSITORY_ALLOW: allowList(repositoryAllowWords),
  TRIPLINE_REPOSITORY_SSH_KEY: optionalString,
  TRIPLINE_HEALTH_INTERVAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(60, 'must be at most 60 seconds (the rate limit window)').default(30),
  ),
  TRIPLINE_NOTIFICATION_ALLOW: allowList(['http', 'private']),
  TRIPLINE_CONNECTION_ALLOW: allowList(['http', 'private']),
  TRIPLINE_CONNECTION_HOSTS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((value) => value.split(/[\s,]+/).map((host) => host.trim().toLowerCase()).filter(Boolean))
      .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), {
        error: 'must list host names (github.example.com), separated by commas, without a scheme, port or path',
      })
      .optional(),
  ),
  TRIPLINE_CONNECTION_CHECK_INTERVAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(10).max(86_400, 'must be at most 86400 seconds').default(900),
  ),
  TRIPLINE_GITLAB_RESEND_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(10_000, 'must be at most 10000 a minute').default(5),
  ),
  TRIPLINE_TEST_CLOCK: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
  TRIPLINE_ALLOW_SIGNUP: z.preprocess(
    emptyAsUndefined,
    z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  ),
  TRIPLINE_FACTORY_CREATION: z.preprocess(
    emptyAsUndefined,
    z.enum(['admins', 'everyone'], { error: 'must be admins or everyone' }).default('admins'),
  ),
  TRIPLINE_INVITATION_TTL_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(90).default(7)),
  TRIPLINE_SIGNIN_ACCOUNT_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(10)),
  TRIPLINE_SIGNIN_ADDRESS_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(30)),
  TRIPLINE_SIGNIN_WINDOW_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(86_400).default(900)),
  TRIPLINE_RUN_COMMAND: optionalString,
  TRIPLINE_RUN_HTTP_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional()),
  TRIPLINE_RUN_HTTP_SECRET: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, 'must be a Standard Webhooks secret: whsec_ followed by base64 (at least 12 bytes)')
      .optional(),
  ),
  TRIPLINE_RUN_HTTP_ATTEMPTS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(50).default(5)),
  TRIPLINE_RUN_TIMEOUT_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(86_400).default(600)),
  TRIPLINE_RUN_CANCEL_GRACE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(3_600).default(10)),
  TRIPLINE_RUN_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(64).default(2)),
  TRIPLINE_METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  TRIPLINE_RUN_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(36_500).default(90)),
  TRIPLINE_RUN_QUEUE_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(1000)),
  TRIPLINE_REPLAY_RATE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000).default(20)),
  TRIPLINE_RUN_ENV: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        const names = (value ?? '').split(',').map((name) => name.trim()).filter(Boolean);
        for (const name of names) {
          const problem = runEnvProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', message: `${name}: ${problem}` });
        }
        return [...new Set(names)];
      }),
  ),
  TRIPLINE_RUN_WORK_DIR: optionalString,
});

// Names a run's program must never receive, whatever the operator lists:
// Tripline's own configuration and credentials (the database password, the
// secrets key, the auth secret), and HOME, which is the run's own folder.
const RESERVED_RUN_ENV = /^(TRIPLINE_.*|DATABASE_URL|TEST_DATABASE_URL|NEXTAUTH_.*|HOME)$/;

function runEnvProblem(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'not a variable name (letters, digits and _, comma-separated)';
  if (RESERVED_RUN_ENV.test(name)) return name === 'HOME' ? 'HOME is always the run\'s own folder' : "Tripline's own configuration is never passed to runs";
  return null;
}

/** Whether `inner` is `outer` or lies inside it. */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** Who executes runs (configured by the operator, never by dashboard users). */
export type ExecutorConfig =
  | { kind: 'none' }
  | {
      kind: 'command';
      command: string;
      timeoutMs: number;
      /** Names of server variables the program receives besides PATH, LANG and TZ (TRIPLINE_RUN_ENV). */
      passEnv?: readonly string[];
      /** Where each run's own folder is created (default: the system's temporary folder). */
      workDir?: string;
      /** Between SIGTERM and SIGKILL to the program's process group when it is cancelled or past its time limit (TRIPLINE_RUN_CANCEL_GRACE_SECONDS). */
      cancelGraceMs?: number;
    }
  | { kind: 'http'; url: string; secret: string; attempts: number; timeoutMs: number };

export type Env = {
  port: number;
  databaseUrl: string | undefined;
  /** Absolute path of the local data folder (embedded database, generated keys). */
  dataDir: string;
  /** Public base URL used to show ingress URLs, without a trailing slash. */
  baseUrl: string;
  secretsKey: string | undefined;
  authSecret: string | undefined;
  /** Whether anyone may create an account at /signup; otherwise accounts come from invitations (and the CLI). */
  allowSignup: boolean;
  /** Who may create factories: instance admins only, or every account. */
  factoryCreation: 'admins' | 'everyone';
  /** Days an invitation link stays valid. */
  invitationTtlDays: number;
  /** Sign-in throttle: failed attempts per account, and per client address, within the window. */
  signInThrottle: { accountLimit: number; addressLimit: number; windowSeconds: number };
  /** Deliveries per minute per webhook; excess gets 429. */
  deliveryRateLimit: number;
  /** Failed authentication attempts per minute per webhook and client address before 429. */
  authFailureLimit: number;
  /** Log entries per minute per webhook written for requests without valid credentials (too large, rejected auth, handshakes); past it, 429. */
  unauthenticatedLogLimit: number;
  /** Seconds between checks of repository-backed factories' production branches; 0 turns the periodic check off. */
  repositorySyncInterval: number;
  /** What dashboard and API users may fetch as a repository (TRIPLINE_REPOSITORY_ALLOW). */
  repositoryAccess: RepositoryAccess;
  /** A private key file ssh uses for every repository fetch (TRIPLINE_REPOSITORY_SSH_KEY); unset: ssh offers no key. */
  repositorySshKey: string | undefined;
  /** Seconds between runs of the health job (rollups, health transitions) and the notification sender. */
  healthInterval: number;
  /** Notification URLs dashboard and API users may set beyond https:// to public addresses (TRIPLINE_NOTIFICATION_ALLOW). */
  notificationAccess: { http: boolean; private: boolean };
  /** Providers' API base URLs a connection may use beyond https:// to public addresses (TRIPLINE_CONNECTION_ALLOW). */
  connectionAccess: { http: boolean; private: boolean };
  /** Hosts beyond the providers' own APIs that a connection may send its token to (TRIPLINE_CONNECTION_HOSTS), lowercase. */
  connectionHosts: string[];
  /** Seconds between a connection's recovery passes (TRIPLINE_CONNECTION_CHECK_INTERVAL, default 900). */
  connectionCheckInterval: number;
  /** Resends a minute the connected GitLab allows per hook and user; 0 when its limit is off (TRIPLINE_GITLAB_RESEND_LIMIT, default 5: GitLab.com's). */
  gitlabResendLimit: number;
  /** Tests only: honour the X-Tripline-Test-Now header as the current time for signature windows. */
  testClock: boolean;
  executor: ExecutorConfig;
  /** Runs executed at once by this instance; 0 leaves execution to other instances or `tripline worker`. */
  runWorkers: number;
  /** Days a finished run is kept; 0 keeps runs forever. */
  runRetentionDays: number;
  /** Bearer token for /metrics; unset turns /metrics off. */
  metricsToken: string | undefined;
  /** Queued runs per factory past which deliveries start no new runs. */
  runQueueLimit: number;
  /** Deliveries a bulk replay job replays per second, at most (lib/domain/replay-jobs). */
  replayRate: number;
};

function executorConfig(raw: z.output<typeof envSchema>, dataDir: string): ExecutorConfig {
  const timeoutMs = raw.TRIPLINE_RUN_TIMEOUT_SECONDS * 1000;
  if (raw.TRIPLINE_RUN_COMMAND && raw.TRIPLINE_RUN_HTTP_URL) {
    throw new Error('Invalid configuration:\n  TRIPLINE_RUN_COMMAND and TRIPLINE_RUN_HTTP_URL: set one executor, not both');
  }
  if (raw.TRIPLINE_RUN_COMMAND) {
    // A run's program acts on untrusted payloads: its folder must not be
    // where the embedded database, the generated keys and the git cache live.
    const workDir = path.resolve(/*turbopackIgnore: true*/ raw.TRIPLINE_RUN_WORK_DIR ?? os.tmpdir());
    if (isWithin(workDir, dataDir)) {
      const variable = raw.TRIPLINE_RUN_WORK_DIR ? 'TRIPLINE_RUN_WORK_DIR' : 'TRIPLINE_RUN_WORK_DIR (unset: the temporary folder, TMPDIR)';
      throw new Error(`Invalid configuration:\n  ${variable}: ${workDir} is inside the data folder ${dataDir}; runs must work outside it`);
    }
    return { kind: 'command', command: raw.TRIPLINE_RUN_COMMAND, timeoutMs, passEnv: raw.TRIPLINE_RUN_ENV, workDir, cancelGraceMs: raw.TRIPLINE_RUN_CANCEL_GRACE_SECONDS * 1000 };
  }
  if (raw.TRIPLINE_RUN_HTTP_URL) {
    if (!raw.TRIPLINE_RUN_HTTP_SECRET) throw new Error('Invalid configuration:\n  TRIPLINE_RUN_HTTP_SECRET: required with TRIPLINE_RUN_HTTP_URL (whsec_…)');
    return { kind: 'http', url: raw.TRIPLINE_RUN_HTTP_URL, secret: raw.TRIPLINE_RUN_HTTP_SECRET, attempts: raw.TRIPLINE_RUN_HTTP_ATTEMPTS, timeoutMs };
  }
  return { kind: 'none' };
}

function repositoryAccess(words: string[]): RepositoryAccess {
  return { http: words.includes('http'), git: words.includes('git'), file: words.includes('file'), private: words.includes('private') };
}

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const raw = parseConfig(envSchema, source);
  const dataDir = path.resolve(/*turbopackIgnore: true*/ raw.TRIPLINE_DATA_DIR);
  return {
    port: raw.PORT,
    databaseUrl: raw.DATABASE_URL,
    dataDir,
    baseUrl: (raw.TRIPLINE_BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    secretsKey: raw.TRIPLINE_SECRETS_KEY,
    authSecret: raw.TRIPLINE_AUTH_SECRET,
    allowSignup: raw.TRIPLINE_ALLOW_SIGNUP === 'true',
    factoryCreation: raw.TRIPLINE_FACTORY_CREATION,
    invitationTtlDays: raw.TRIPLINE_INVITATION_TTL_DAYS,
    signInThrottle: {
      accountLimit: raw.TRIPLINE_SIGNIN_ACCOUNT_LIMIT,
      addressLimit: raw.TRIPLINE_SIGNIN_ADDRESS_LIMIT,
      windowSeconds: raw.TRIPLINE_SIGNIN_WINDOW_SECONDS,
    },
    deliveryRateLimit: raw.TRIPLINE_DELIVERY_RATE_LIMIT,
    authFailureLimit: raw.TRIPLINE_AUTH_FAILURE_LIMIT,
    unauthenticatedLogLimit: raw.TRIPLINE_UNAUTHENTICATED_LOG_LIMIT,
    repositorySyncInterval: raw.TRIPLINE_REPOSITORY_SYNC_INTERVAL,
    repositoryAccess: repositoryAccess(raw.TRIPLINE_REPOSITORY_ALLOW ?? []),
    repositorySshKey: raw.TRIPLINE_REPOSITORY_SSH_KEY ? path.resolve(/*turbopackIgnore: true*/ raw.TRIPLINE_REPOSITORY_SSH_KEY) : undefined,
    testClock: raw.TRIPLINE_TEST_CLOCK === 'true',
    healthInterval: raw.TRIPLINE_HEALTH_INTERVAL,
    notificationAccess: {
      http: (raw.TRIPLINE_NOTIFICATION_ALLOW ?? []).includes('http'),
      private: (raw.TRIPLINE_NOTIFICATION_ALLOW ?? []).includes('private'),
    },
    connectionAccess: {
      http: (raw.TRIPLINE_CONNECTION_ALLOW ?? []).includes('http'),
      private: (raw.TRIPLINE_CONNECTION_ALLOW ?? []).includes('private'),
    },
    connectionHosts: raw.TRIPLINE_CONNECTION_HOSTS ?? [],
    connectionCheckInterval: raw.TRIPLINE_CONNECTION_CHECK_INTERVAL,
    gitlabResendLimit: raw.TRIPLINE_GITLAB_RESEND_LIMIT,
    executor: executorConfig(raw, dataDir),
    runWorkers: raw.TRIPLINE_RUN_WORKERS,
    runRetentionDays: raw.TRIPLINE_RUN_RETENTION_DAYS,
    metricsToken: raw.TRIPLINE_METRICS_TOKEN,
    runQueueLimit: raw.TRIPLINE_RUN_QUEUE_LIMIT,
    replayRate: raw.TRIPLINE_REPLAY_RATE,
  };
}

let cached: Env | undefined;

/** The process environment, parsed once. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
