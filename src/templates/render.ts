/**
 * Rendering a template version with a send's variables. Values are escaped for HTML in
 * `html_body` only; the subject and the text body take them as they are (a subject is a header,
 * which the MIME writer encodes; text is text). Line breaks in subject values become spaces, so a
 * value can never start a new header line.
 */
import { badRequest, type ErrorDetail } from '../platform/http/errors.js';
import { substitute } from './placeholders.js';

export interface TemplateContent {
  readonly subject: string;
  readonly html_body: string | null;
  readonly text_body: string | null;
}

export interface RenderedContent {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes the five characters that matter in HTML text and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * The difference between the declared variables and the provided values, as 400 details; empty
 * when they match exactly.
 */
export function variableMismatch(
  declared: readonly string[],
  provided: Readonly<Record<string, unknown>>,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const given = Object.keys(provided);
  for (const name of declared) {
    if (!Object.hasOwn(provided, name))
      details.push({ path: `variables.${name}`, message: 'is declared by the template but missing' });
  }
  const known = new Set(declared);
  for (const name of given) {
    if (!known.has(name))
      details.push({ path: `variables.${name}`, message: 'is not declared by the template' });
  }
  for (const name of given) {
    if (known.has(name) && typeof provided[name] !== 'string')
      details.push({ path: `variables.${name}`, message: 'must be a string' });
  }
  return details;
}

/** Throws a 400 naming every missing, extra or non-string variable. */
export function assertExactVariables(
  declared: readonly string[],
  provided: Readonly<Record<string, unknown>>,
): void {
  const details = variableMismatch(declared, provided);
  if (details.length === 0) return;
  const missing = details
    .filter((d) => d.message.includes('missing'))
    .map((d) => d.path.slice('variables.'.length));
  const extra = details
    .filter((d) => d.message.includes('not declared'))
    .map((d) => d.path.slice('variables.'.length));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.map((n) => `"${n}"`).join(', ')}`);
  if (extra.length > 0) parts.push(`not declared ${extra.map((n) => `"${n}"`).join(', ')}`);
  if (parts.length === 0) parts.push('every value must be a string');
  throw badRequest(
    `variables: must be exactly the template's declared variables (${parts.join('; ')}).`,
    details,
  );
}

/** Renders the content; the caller has checked that `variables` match the declared set. */
export function renderContent(
  content: TemplateContent,
  variables: Readonly<Record<string, string>>,
): RenderedContent {
  const raw = (name: string) => variables[name] ?? '';
  return {
    subject: substitute(content.subject, (name) => raw(name).replace(/\r\n|[\r\n]/g, ' ')),
    html: content.html_body === null ? null : substitute(content.html_body, (name) => escapeHtml(raw(name))),
    text: content.text_body === null ? null : substitute(content.text_body, raw),
  };
}
