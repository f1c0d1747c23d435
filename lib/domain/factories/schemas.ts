import { z } from 'zod';

// A factory's slug appears in dashboard and API paths: /f/<slug>, /api/v1/factories/<slug>.
export const factorySlugSchema = z
  .string()
  .trim()
  .min(2, 'Use at least 2 characters')
  .max(40, 'Use at most 40 characters')
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lowercase letters, digits and single hyphens (for example "acme-ops")');

export const factoryNameSchema = z.string().trim().min(1, 'Enter a name').max(80, 'Use at most 80 characters');

export const createFactorySchema = z.object({ name: factoryNameSchema, slug: factorySlugSchema });
export type CreateFactoryInput = z.input<typeof createFactorySchema>;

/** A slug suggestion from a name: "Acme Ops!" -> "acme-ops". */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}
