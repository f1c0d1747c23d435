import { parseArgs, type ParseArgsConfig } from 'node:util';

// Small helpers shared by the CLI commands.

/**
 * How the user runs the command line, for usage lines and hints: `tripline`
 * from the npm package (its launcher, scripts/pack/tripline.mjs, says so),
 * `npm run tripline --` in a clone.
 */
export const CLI = process.env.TRIPLINE_CLI_NAME || 'npm run tripline --';

export class UsageError extends Error {}

/** Parses a command's flags; a bad flag (or, with allowPositionals false, any positional) is a UsageError. */
export function parseOptions<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, { allowPositionals = true } = {}) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function required(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${flag}`);
  return value;
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
