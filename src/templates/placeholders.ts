/**
 * Placeholders: `{{name}}`, optionally with spaces inside the braces (`{{ name }}`). A template
 * declares its variables, and the placeholders its subject and bodies use must be exactly that
 * set, so a send can never leave a `{{...}}` in a customer's inbox. Any other `{{`, and a
 * placeholder that lost one of its opening braces (`{name}}`), is an error at save time rather
 * than text that silently goes out as is. A lone `}}` is text: minified CSS closes a media query
 * with it (`@media (...){.a{color:red}}`), and Mustache, Handlebars and Liquid read it as text too.
 *
 * Every scan here is linear in the text, whatever it holds: a template is scanned on every save
 * and every send, on the event loop.
 */

/** A variable name: a letter or underscore, then letters, digits, `_`, `.` or `-`; at most 64 characters. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Names a variable may not take. A send's `variables` is a JSON object, and `__proto__` never
 * arrives as a key of one (the parser drops it; it would replace the object's prototype), so a
 * template declaring it could never be sent.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__']);

export function isVariableName(name: string): boolean {
  return VARIABLE_NAME.test(name) && !RESERVED_NAMES.has(name);
}

/**
 * One token: a run of `{` with at most 100 characters and no brace inside, closed by a run of
 * `}` (a placeholder when both runs are two long and the inside is a name); else a run of `{`
 * that nothing closes; else `{name}}`. The inside is bounded, so an unclosed `{{` costs at most
 * 100 characters of look-ahead, never a scan to the end of the text.
 */
const TOKEN =
  /(\{{2,})([^{}]{0,100})(\}{2,})|\{{2,}|\{[ \t]{0,16}[A-Za-z_][A-Za-z0-9_.-]{0,63}[ \t]{0,16}\}\}/g;

/** A piece of a template: literal text, or a placeholder to fill with the named variable. */
export type Segment = string | { readonly name: string };

export interface PlaceholderScan {
  /** Names used, in first-use order. */
  readonly names: readonly string[];
  /** `{{...}}` sequences that are not a valid placeholder, as written (distinct, at most 20). */
  readonly malformed: readonly string[];
  /** How many malformed sequences there are in all. */
  readonly malformedCount: number;
}

const MAX_REPORTED = 20;

/** The name a placeholder token holds, or undefined when the token is malformed. */
function placeholderName(match: RegExpExecArray): string | undefined {
  if (match[1] !== '{{' || match[3] !== '}}') return undefined;
  const name = (match[2] ?? '').trim();
  return isVariableName(name) ? name : undefined;
}

/**
 * How a malformed token reads in an error. An unclosed run of `{` is shown with what follows it
 * on its line, up to 30 characters; anything else as written (at most 120 characters).
 */
function shown(text: string, match: RegExpExecArray): string {
  const token = match[0];
  if (token.endsWith('}')) return token.length > 120 ? `${token.slice(0, 117)}...` : token;
  // Only the next 30 characters are looked at: this runs for every malformed token.
  const after = match.index + token.length;
  const next = text.slice(after, after + 30);
  const stop = next.search(/[\r\n{]/);
  const rest = stop < 0 ? next : next.slice(0, stop);
  return `${token.length > 4 ? `${token.slice(0, 4)}...` : token}${rest}`;
}

export function scanPlaceholders(text: string): PlaceholderScan {
  const names = new Set<string>();
  const malformed = new Set<string>();
  let malformedCount = 0;
  for (const match of text.matchAll(TOKEN)) {
    const name = placeholderName(match);
    if (name !== undefined) {
      names.add(name);
      continue;
    }
    malformedCount++;
    if (malformed.size < MAX_REPORTED) malformed.add(shown(text, match));
  }
  return { names: [...names], malformed: [...malformed], malformedCount };
}

/**
 * The text split into literal pieces and placeholders; a malformed token stays literal text
 * (a version saved before the current rules may hold one).
 */
export function segments(text: string): Segment[] {
  const out: Segment[] = [];
  let from = 0;
  for (const match of text.matchAll(TOKEN)) {
    const name = placeholderName(match);
    if (name === undefined) continue;
    if (match.index > from) out.push(text.slice(from, match.index));
    out.push({ name });
    from = match.index + match[0].length;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/**
 * Replaces every placeholder in one pass, so a value that itself contains `{{x}}` is never
 * expanded again. `value` is called only for names it has; callers check the set first.
 */
export function substitute(text: string, value: (name: string) => string): string {
  return segments(text)
    .map((segment) => (typeof segment === 'string' ? segment : value(segment.name)))
    .join('');
}
