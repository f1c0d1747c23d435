import { z } from 'zod';

export const secretNameSchema = z
  .string()
  .trim()
  .min(1, 'Enter a secret name')
  .max(64, 'Use at most 64 characters')
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'Use letters, digits and underscores, starting with a letter (for example GITHUB_WEBHOOK_SECRET)');

export const secretValueSchema = z
  .string()
  .min(1, 'Enter a value')
  .max(4096, 'Use at most 4,096 characters')
  .refine((value) => value.trim() === value, 'Remove the spaces or line breaks at the start or end');

export const createSecretSchema = z.object({ name: secretNameSchema, value: secretValueSchema });
export type CreateSecretInput = z.input<typeof createSecretSchema>;

export const putSecretSchema = z.object({ value: secretValueSchema });

export const replaceSecretSchema = z.object({ name: secretNameSchema, value: secretValueSchema });
export const deleteSecretSchema = z.object({ name: secretNameSchema });

/** Characters that can stand in a URL path segment without encoding (RFC 3986 "unreserved"). */
export function isUrlSafe(value: string): boolean {
  return /^[A-Za-z0-9._~-]+$/.test(value);
}
