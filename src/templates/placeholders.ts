/**
 * Placeholders: `{{name}}`, optionally with spaces inside the braces (`{{ name }}`). A template
 * declares its variables, and the placeholders its subject and bodies use must be exactly that
 * set, so a send can never leave a `{{...}}` in a customer's inbox. Any other `{{...}}` is an
 * error at save time rather than text that silently goes out as is.
 */

/** A variable name: a letter or underscore, then letters, digits, `_`, `.` or `-`; at most 64 characters. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

// Lazy, so `{{a}} and {{b}}` is two placeholders; `s` so a broken one spanning lines is still seen.
const BRACES = /\{\{(.*?)\}\}/gs;

export interface PlaceholderScan {
  /** Names used, in first-use order. */
  readonly names: readonly string[];
  /** `{{...}}` sequences that are not a valid placeholder, as written. */
  readonly malformed: readonly string[];
}

export function scanPlaceholders(text: string): PlaceholderScan {
  const names = new Set<string>();
  const malformed: string[] = [];
  for (const match of text.matchAll(BRACES)) {
    const inner = (match[1] ?? '').trim();
    if (VARIABLE_NAME.test(inner)) names.add(inner);
    else malformed.push(match[0]);
  }
  return { names: [...names], malformed };
}

/**
 * Replaces every placeholder in one pass, so a value that itself contains `{{x}}` is never
 * expanded again. `value` is called only for names it has; callers check the set first.
 */
export function substitute(text: string, value: (name: string) => string): string {
  return text.replace(BRACES, (whole, inner: string) => {
    const name = inner.trim();
    return VARIABLE_NAME.test(name) ? value(name) : whole;
  });
}
