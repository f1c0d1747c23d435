import 'server-only';
import path from 'node:path';
import { z } from 'zod';

// The validated environment. Every variable Tripline reads is listed here (and
// in the README); bad configuration fails at startup with the variable's name.

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

const envSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(3000)),
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
  TRIPLINE_REPOSITORY_SYNC_INTERVAL: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(86_400, 'must be at most 86400 seconds').default(60),
  ),
  TRIPLINE_TEST_CLOCK: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
  TRIPLINE_ALLOW_SIGNUP: z.preprocess(
    emptyAsUndefined,
    z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  ),
});

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
  /** Seconds between checks of repository-backed factories' production branches; 0 turns the periodic check off. */
  repositorySyncInterval: number;
  /** Tests only: honour the X-Tripline-Test-Now header as the current time for signature windows. */
  testClock: boolean;
};

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
    repositorySyncInterval: raw.TRIPLINE_REPOSITORY_SYNC_INTERVAL,
    testClock: raw.TRIPLINE_TEST_CLOCK === 'true',
  };
}

let cached: Env | undefined;

/** The process environment, parsed once. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
