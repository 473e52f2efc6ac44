/**
 * Rendering a template version with a send's variables. Values are escaped for HTML in
 * `html_body` only; the subject and the text body take them as they are (a subject is a header,
 * which the MIME writer encodes; text is text). Line breaks in subject values become spaces, so a
 * value can never start a new header line.
 *
 * A template send must never accept what a direct send with the same content would refuse, so
 * the rendered subject follows the send API's subject rules and each rendered body its size
 * limit. Sizes are added up from the pieces before anything is joined: a short template whose
 * placeholders repeat a long value must not build a string of gigabytes to find out.
 */
import { badRequest } from '../platform/http/errors.js';
import { type HtmlContext, placeholderContexts } from './html-context.js';
import { type Segment, segments } from './placeholders.js';

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

/** A field's pieces, each placeholder replaced by its (escaped) value, and their sizes. */
interface Filled {
  readonly pieces: readonly string[];
  /** UTF-16 code units, what a JSON string's length (and the send API's limits) count. */
  readonly chars: number;
  readonly bytes: number;
}

/** Fills `parts`; `value` is called once per placeholder and should return the same string for a name. */
function fill(parts: readonly Segment[], value: (name: string, index: number) => string): Filled {
  const byteLengths = new Map<string, number>();
  const pieces: string[] = [];
  let chars = 0;
  let bytes = 0;
  let index = 0;
  for (const part of parts) {
    const piece = typeof part === 'string' ? part : value(part.name, index++);
    let pieceBytes = byteLengths.get(piece);
    if (pieceBytes === undefined) {
      pieceBytes = Buffer.byteLength(piece, 'utf8');
      if (typeof part !== 'string') byteLengths.set(piece, pieceBytes);
    }
    pieces.push(piece);
    chars += piece.length;
    bytes += pieceBytes;
  }
  return { pieces, chars, bytes };
}

/** Calls `make` once per distinct key. */
function memo(make: (key: string) => string): (key: string) => string {
  const made = new Map<string, string>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

function fillHtml(html: string, raw: (name: string) => string): Filled {
  const parts = segments(html);
  const contexts: HtmlContext[] = placeholderContexts(parts);
  const inText = memo((name) => escapeHtml(raw(name)));
  const inTag = memo((name) => escapeInTag(raw(name)));
  return fill(parts, (name, index) => (contexts[index] === 'tag' ? inTag(name) : inText(name)));
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
  if (subject.pieces.some((piece) => /[\r\n]/.test(piece))) {
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
  if (html && html.bytes > max) throw tooLarge('html', 'html_body', html.bytes);
  if (text && text.bytes > max) throw tooLarge('text', 'text_body', text.bytes);
  const both = (html?.bytes ?? 0) + (text?.bytes ?? 0);
  if (both > max) throw tooLarge('html', 'html_body and text_body together', both);
}

/**
 * Renders the content; the caller has checked that `variables` match the declared set. A 400
 * names the field when the rendered subject breaks the send API's subject rules or a rendered
 * body is larger than `limits.maxBodyBytes`.
 */
export function renderContent(
  content: TemplateContent,
  variables: Readonly<Record<string, string>>,
  limits: RenderLimits = { maxBodyBytes: Number.POSITIVE_INFINITY },
): RenderedContent {
  const raw = (name: string) => (Object.hasOwn(variables, name) ? (variables[name] as string) : '');
  const oneLine = memo((name) => raw(name).replace(/\r\n|[\r\n]/g, ' '));
  const subject = fill(segments(content.subject), oneLine);
  checkSubject(subject);
  const html = content.html_body === null ? null : fillHtml(content.html_body, raw);
  const text = content.text_body === null ? null : fill(segments(content.text_body), raw);
  checkBodies(html, text, limits);
  return {
    subject: subject.pieces.join(''),
    html: html === null ? null : html.pieces.join(''),
    text: text === null ? null : text.pieces.join(''),
  };
}
