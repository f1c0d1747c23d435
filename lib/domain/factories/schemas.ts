import { z } from 'zod';
import { cursorPageSchema } from '@/lib/platform/paging';

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

/** Factories one page of GET /api/v1/factories holds by default, and at most (API_PAGE_MAX). */
export const FACTORIES_PER_API_PAGE = 100;

/** GET /api/v1/factories?limit=&cursor=: the caller's factories by name, a page at a time. */
export const listFactoriesSchema = cursorPageSchema(FACTORIES_PER_API_PAGE);
export type ListFactoriesInput = z.input<typeof listFactoriesSchema>;

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
