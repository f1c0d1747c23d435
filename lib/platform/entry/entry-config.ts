import { z } from 'zod';
import { parseTrustedProxies } from '@/lib/platform/entry/client-address';

// The variables the server entry (server.ts) reads before Next.js starts.
// lib/platform/env.ts merges this shape into the app's own, so each variable is
// declared and validated once.

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const seconds = (max: number, fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(max).default(fallback));

export const entryEnvShape = {
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(3000)),
  TRIPLINE_LISTEN_ADDRESS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[0-9A-Za-z.:%-]+$/, 'must be an IP address or a host name')
      .optional(),
  ),
  TRIPLINE_TRUSTED_PROXIES: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .optional()
      .superRefine((value, context) => {
        try {
          parseTrustedProxies(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: `${(error as Error).message} (use CIDR blocks, addresses or "loopback")` });
        }
      }),
  ),
  TRIPLINE_SHUTDOWN_GRACE_SECONDS: seconds(3600, 30),
  TRIPLINE_SHUTDOWN_DELAY_SECONDS: seconds(300, 0),
  // Never 0: Node would then keep idle connections forever.
  TRIPLINE_KEEP_ALIVE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().min(1).max(3600).default(125)),
};

const entrySchema = z.object(entryEnvShape);

export type EntryConfig = {
  port: number;
  /** Address to listen on; undefined listens on every interface, as `next start` does. */
  listenAddress: string | undefined;
  trustedProxies: string | undefined;
  /** How long in-flight requests and running runs get to finish after SIGTERM. */
  shutdownGraceMs: number;
  /** How long /readyz answers 503 before the listener closes (for load balancers to notice). */
  shutdownDelayMs: number;
  /**
   * How long an idle keep-alive connection stays open. Longer than the idle
   * timeout of any proxy in front, so that the proxy, not Tripline, closes it.
   */
  keepAliveMs: number;
};

/** Parses the environment with `schema`, or throws one error naming every bad variable. */
export function parseConfig<T extends z.ZodType>(schema: T, source: NodeJS.ProcessEnv): z.output<T> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}

export function parseEntryConfig(source: NodeJS.ProcessEnv = process.env): EntryConfig {
  const raw = parseConfig(entrySchema, source);
  return {
    port: raw.PORT,
    listenAddress: raw.TRIPLINE_LISTEN_ADDRESS,
    trustedProxies: raw.TRIPLINE_TRUSTED_PROXIES,
    shutdownGraceMs: raw.TRIPLINE_SHUTDOWN_GRACE_SECONDS * 1000,
    shutdownDelayMs: raw.TRIPLINE_SHUTDOWN_DELAY_SECONDS * 1000,
    keepAliveMs: raw.TRIPLINE_KEEP_ALIVE_SECONDS * 1000,
  };
}
