import 'server-only';
import path from 'node:path';
import { z } from 'zod';
import { entryEnvShape } from '@/lib/server/entry-config';

// The validated environment. Every variable Tripline reads is listed here (and
// in the README); bad configuration fails at startup with the variable's name.

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

const envSchema = z.object({
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
  TRIPLINE_TEST_CLOCK: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
  TRIPLINE_ALLOW_SIGNUP: z.preprocess(
    emptyAsUndefined,
    z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  ),
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
  TRIPLINE_RUN_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(64).default(2)),
  TRIPLINE_RUN_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(36_500).default(90)),
});

/** Who executes runs (configured by the operator, never by dashboard users). */
export type ExecutorConfig =
  | { kind: 'none' }
  | { kind: 'command'; command: string; timeoutMs: number }
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
  /** Whether anyone may create an account at /signup (admins still decide who joins their factory). */
  allowSignup: boolean;
  /** Deliveries per minute per webhook; excess gets 429. */
  deliveryRateLimit: number;
  /** Failed authentication attempts per minute per webhook and client address before 429. */
  authFailureLimit: number;
  /** Log entries per minute per webhook written for requests without valid credentials (too large, rejected auth, handshakes); past it, 429. */
  unauthenticatedLogLimit: number;
  /** Seconds between checks of repository-backed factories' production branches; 0 turns the periodic check off. */
  repositorySyncInterval: number;
  /** Tests only: honour the X-Tripline-Test-Now header as the current time for signature windows. */
  testClock: boolean;
  executor: ExecutorConfig;
  /** Runs executed at once by this instance; 0 leaves execution to other instances or `tripline worker`. */
  runWorkers: number;
  /** Days a finished run is kept; 0 keeps runs forever. */
  runRetentionDays: number;
};

function executorConfig(raw: z.output<typeof envSchema>): ExecutorConfig {
  const timeoutMs = raw.TRIPLINE_RUN_TIMEOUT_SECONDS * 1000;
  if (raw.TRIPLINE_RUN_COMMAND && raw.TRIPLINE_RUN_HTTP_URL) {
    throw new Error('Invalid configuration:\n  TRIPLINE_RUN_COMMAND and TRIPLINE_RUN_HTTP_URL: set one executor, not both');
  }
  if (raw.TRIPLINE_RUN_COMMAND) return { kind: 'command', command: raw.TRIPLINE_RUN_COMMAND, timeoutMs };
  if (raw.TRIPLINE_RUN_HTTP_URL) {
    if (!raw.TRIPLINE_RUN_HTTP_SECRET) throw new Error('Invalid configuration:\n  TRIPLINE_RUN_HTTP_SECRET: required with TRIPLINE_RUN_HTTP_URL (whsec_…)');
    return { kind: 'http', url: raw.TRIPLINE_RUN_HTTP_URL, secret: raw.TRIPLINE_RUN_HTTP_SECRET, attempts: raw.TRIPLINE_RUN_HTTP_ATTEMPTS, timeoutMs };
  }
  return { kind: 'none' };
}

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = result.data;
  return {
    port: raw.PORT,
    databaseUrl: raw.DATABASE_URL,
    dataDir: path.resolve(/*turbopackIgnore: true*/ raw.TRIPLINE_DATA_DIR),
    baseUrl: (raw.TRIPLINE_BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    secretsKey: raw.TRIPLINE_SECRETS_KEY,
    authSecret: raw.TRIPLINE_AUTH_SECRET,
    allowSignup: raw.TRIPLINE_ALLOW_SIGNUP === 'true',
    deliveryRateLimit: raw.TRIPLINE_DELIVERY_RATE_LIMIT,
    authFailureLimit: raw.TRIPLINE_AUTH_FAILURE_LIMIT,
    unauthenticatedLogLimit: raw.TRIPLINE_UNAUTHENTICATED_LOG_LIMIT,
    repositorySyncInterval: raw.TRIPLINE_REPOSITORY_SYNC_INTERVAL,
    testClock: raw.TRIPLINE_TEST_CLOCK === 'true',
    executor: executorConfig(raw),
    runWorkers: raw.TRIPLINE_RUN_WORKERS,
    runRetentionDays: raw.TRIPLINE_RUN_RETENTION_DAYS,
  };
}

let cached: Env | undefined;

/** The process environment, parsed once. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
