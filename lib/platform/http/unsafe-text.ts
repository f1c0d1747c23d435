// What no text field of Tripline can hold (lib/platform/http/unsafe-input.ts says why). No imports:
// the dashboard's forms check it in the browser too, through the schemas that use it.

// With the u flag a well-formed pair is one code point; only a lone half is of category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a string cannot be held, or null. */
export function unsafeText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000), which Tripline does not accept';
  if (LONE_SURROGATE.test(text)) return 'contains a lone surrogate (half of a UTF-16 pair), which has no UTF-8 form';
  return null;
}
