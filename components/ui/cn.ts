export type ClassValue = string | number | bigint | boolean | null | undefined;

/**
 * Joins the truthy class names. It does not resolve Tailwind conflicts, so a
 * `className` override should add classes rather than fight the base ones.
 */
export function cn(...classes: ClassValue[]): string {
  let out = '';
  for (const c of classes) {
    if (!c || c === true) continue;
    out = out ? `${out} ${c}` : String(c);
  }
  return out;
}
