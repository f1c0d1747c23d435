import { parseArgs, type ParseArgsConfig } from 'node:util';

// Small helpers shared by the CLI commands.

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
