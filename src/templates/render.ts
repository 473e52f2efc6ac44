/**
 * Rendering a template version with a send's variables. Values are escaped for HTML in
 * `html_body` only; the subject and the text body take them as they are (a subject is a header,
 * which the MIME writer encodes; text is text). Line breaks in subject values become spaces, so a
 * value can never start a new header line.
 *
 * A template send must never accept what a direct send with the same content would refuse, so
 * the rendered subject follows the send API's subject rules and each rendered body its size
 * limit. Sizes are added up before anything is joined, from the literal text's sizes and each
 * distinct value's times its uses: a short template whose placeholders repeat a long value must
 * not build a string of gigabytes to find out. What depends only on the template's text is parsed
 * once per version (parsed.ts, parsed-cache.ts); a render works only on the values.
 */
import { badRequest } from '../platform/http/errors.js';
import {
  type ParsedContent,
  type ParsedField,
  parseContent,
  type TemplateContent,
  type Use,
} from './parsed.js';

export interface RenderedContent {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

export interface RenderLimits {
  /** The largest body a direct send can carry: `limits.max_body_bytes`, its whole request. */
  readonly maxBodyBytes: number;
}

/** RFC 5322 §2.1.1, as the send API's `subject` (emails/schemas.ts). */
export const MAX_SUBJECT_CHARS = 998;

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '=': '&#61;',
  ' ': '&#32;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\f': '&#12;',
  '\r': '&#13;',
};

/** Escapes the five characters that matter in HTML text and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * Escapes a value that sits inside a tag outside quotes (`<a href={{url}}>`): white space, `=`
 * and backticks too, so it stays one attribute value (or name) and cannot add attributes.
 * Browsers decode the references, so the attribute's value is the value as given.
 */
export function escapeInTag(value: string): string {
  return value.replace(/[&<>"'`=\t\n\f\r ]/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** A field's values as written (one per use) and its size once rendered. */
interface Filled {
  readonly field: ParsedField;
  readonly values: readonly string[];
  /** UTF-16 code units, what a JSON string's length (and the send API's limits) count. */
  readonly chars: number;
  readonly bytes: number;
}

/** Sizes a field from its literal text and each distinct value once, without joining anything. */
function fill(field: ParsedField, write: (use: Use) => string): Filled {
  let chars = field.literalChars;
  let bytes = field.literalBytes;
  const values = field.uses.map((use) => {
    const value = write(use);
    chars += use.count * value.length;
    bytes += use.count * Buffer.byteLength(value, 'utf8');
    return value;
  });
  return { field, values, chars, bytes };
}

function joined(filled: Filled): string {
  const out = filled.field.pieces.slice();
  for (const [piece, use] of filled.field.slots) out[piece] = filled.values[use] as string;
  return out.join('');
}

function checkSubject(subject: Filled): void {
  const fix = 'shorten or fill in the variables it uses';
  if (subject.chars > MAX_SUBJECT_CHARS) {
    throw badRequest(
      `subject: the template's subject would be ${subject.chars} characters once rendered; a subject may have at most ${MAX_SUBJECT_CHARS} (RFC 5322 §2.1.1), as in a direct send; ${fix}.`,
      [{ path: 'subject', message: `would be ${subject.chars} characters; at most ${MAX_SUBJECT_CHARS}` }],
    );
  }
  if (subject.chars === 0) {
    throw badRequest(`subject: the template's subject would be empty once rendered; ${fix}.`, [
      { path: 'subject', message: 'would be empty' },
    ]);
  }
  // Values' line breaks became spaces; a version saved before subjects were checked may hold one.
  if (subject.field.literalLineBreak) {
    throw badRequest(
      "subject: the template's subject contains a line break, which a subject must not; save a new version without it.",
      [{ path: 'subject', message: 'must not contain line breaks' }],
    );
  }
}

function checkBodies(html: Filled | null, text: Filled | null, limits: RenderLimits): void {
  const max = limits.maxBodyBytes;
  const tooLarge = (path: string, what: string, bytes: number) =>
    badRequest(
      `${path}: the template's ${what} would be ${bytes} bytes once rendered; a direct send's body may be at most ${max} bytes (limits.max_body_bytes); shorten the variables it uses.`,
      [{ path, message: `would be ${bytes} bytes; at most ${max}` }],
    );
  // A direct send refuses an empty body (emails/schemas.ts); a template send is held to the same.
  const empty = (path: string, what: string) =>
    badRequest(
      `${path}: the template's ${what} would be empty once rendered, and a direct send's ${path} must not be empty; fill in the variables it uses.`,
      [{ path, message: 'would be empty' }],
    );
  if (html && html.bytes === 0) throw empty('html', 'html_body');
  if (text && text.bytes === 0) throw empty('text', 'text_body');
  if (html && html.bytes > max) throw tooLarge('html', 'html_body', html.bytes);
  if (text && text.bytes > max) throw tooLarge('text', 'text_body', text.bytes);
  const both = (html?.bytes ?? 0) + (text?.bytes ?? 0);
  if (both > max) throw tooLarge('html', 'html_body and text_body together', both);
}

/**
 * Renders parsed content (parsed.ts); the caller has checked that `variables` match the declared
 * set. A 400 names the field when the rendered subject breaks the send API's subject rules or a
 * rendered body is larger than `limits.maxBodyBytes`.
 */
export function renderParsed(
  parsed: ParsedContent,
  variables: Readonly<Record<string, string>>,
  limits: RenderLimits = { maxBodyBytes: Number.POSITIVE_INFINITY },
): RenderedContent {
  const { subject, html, text } = checkedFill(parsed, variables, limits);
  return {
    subject: joined(subject),
    html: html === null ? null : joined(html),
    text: text === null ? null : joined(text),
  };
}

/**
 * The subject `renderParsed` would write, after every check it makes (the bodies' sizes too), with
 * the bodies left unwritten: a broadcast message's bodies are written at composition, in a render
 * worker, from its broadcast's content and the same values (broadcasts/render-content.ts).
 */
export function renderSubject(
  parsed: ParsedContent,
  variables: Readonly<Record<string, string>>,
  limits: RenderLimits = { maxBodyBytes: Number.POSITIVE_INFINITY },
): string {
  return joined(checkedFill(parsed, variables, limits).subject);
}

/** Each field sized with its values written once, and checked; nothing joined yet. */
function checkedFill(
  parsed: ParsedContent,
  variables: Readonly<Record<string, string>>,
  limits: RenderLimits,
): { subject: Filled; html: Filled | null; text: Filled | null } {
  const raw = (name: string) => (Object.hasOwn(variables, name) ? (variables[name] as string) : '');
  const write = (use: Use): string => {
    switch (use.writing) {
      case 'plain':
        return raw(use.name);
      case 'one-line':
        return raw(use.name).replace(/\r\n|[\r\n]/g, ' ');
      case 'html-text':
        return escapeHtml(raw(use.name));
      case 'html-tag':
        return escapeInTag(raw(use.name));
    }
  };
  const subject = fill(parsed.subject, write);
  checkSubject(subject);
  const html = parsed.html === null ? null : fill(parsed.html, write);
  const text = parsed.text === null ? null : fill(parsed.text, write);
  checkBodies(html, text, limits);
  return { subject, html, text };
}

/** Parses and renders `content` (what `renderParsed` does with a version's cached parse). */
export function renderContent(
  content: TemplateContent,
  variables: Readonly<Record<string, string>>,
  limits?: RenderLimits,
): RenderedContent {
  return renderParsed(parseContent(content), variables, limits);
}
