/**
 * The parsed form of a template version's content: everything a render needs that depends only on
 * the template's text (its literal pieces, where each placeholder goes and, in HTML, in which
 * context it sits, the literal text's sizes). Versions never change once stored, so this is
 * computed once per version (templates/parsed-cache.ts) and each send does work only for its
 * values. It must never hold a send's values: it is shared by every send of the version.
 */
import { placeholderContexts } from './html-context.js';
import { type Segment, segments } from './placeholders.js';

/**
 * How a value is written where a placeholder sits: as given (text body), on one line (subject),
 * escaped for HTML text and quoted attribute values, or escaped for the inside of a tag.
 */
export type Writing = 'plain' | 'one-line' | 'html-text' | 'html-tag';

/** One distinct (variable, writing) pair of a field and how many placeholders use it. */
export interface Use {
  readonly name: string;
  readonly writing: Writing;
  readonly count: number;
}

export interface ParsedField {
  /** The literal text in order, with '' where each placeholder goes. */
  readonly pieces: readonly string[];
  /** For each placeholder: its index in `pieces` and its index in `uses`. */
  readonly slots: readonly (readonly [piece: number, use: number])[];
  readonly uses: readonly Use[];
  /** UTF-16 code units of the literal text (what the send API's limits count). */
  readonly literalChars: number;
  /** UTF-8 bytes of the literal text. */
  readonly literalBytes: number;
  /** Whether the literal text holds a CR or LF (a subject saved before subjects were checked). */
  readonly literalLineBreak: boolean;
}

export interface ParsedContent {
  readonly subject: ParsedField;
  readonly html: ParsedField | null;
  readonly text: ParsedField | null;
  /**
   * About how much memory this holds, in bytes: the pieces are slices of the template's text and
   * keep it alive (two bytes a character at most), plus the arrays' entries.
   */
  readonly weight: number;
}

export interface TemplateContent {
  readonly subject: string;
  readonly html_body: string | null;
  readonly text_body: string | null;
}

function parseField(parts: readonly Segment[], writingAt: (index: number) => Writing): ParsedField {
  const pieces: string[] = [];
  const slots: Array<readonly [number, number]> = [];
  const uses: { name: string; writing: Writing; count: number }[] = [];
  const useIndex = new Map<string, number>();
  let literalChars = 0;
  let literalBytes = 0;
  let literalLineBreak = false;
  for (const part of parts) {
    if (typeof part === 'string') {
      pieces.push(part);
      literalChars += part.length;
      literalBytes += Buffer.byteLength(part, 'utf8');
      literalLineBreak ||= /[\r\n]/.test(part);
      continue;
    }
    const writing = writingAt(slots.length);
    const key = `${writing}:${part.name}`;
    let use = useIndex.get(key);
    if (use === undefined) {
      use = uses.length;
      useIndex.set(key, use);
      uses.push({ name: part.name, writing, count: 0 });
    }
    (uses[use] as { count: number }).count++;
    slots.push([pieces.length, use]);
    pieces.push('');
  }
  return { pieces, slots, uses, literalChars, literalBytes, literalLineBreak };
}

function parseHtml(html: string): ParsedField {
  const parts = segments(html);
  const contexts = placeholderContexts(parts);
  return parseField(parts, (index) => (contexts[index] === 'tag' ? 'html-tag' : 'html-text'));
}

const ENTRY_BYTES = 16;

function weigh(content: TemplateContent, fields: readonly (ParsedField | null)[]): number {
  const chars = content.subject.length + (content.html_body?.length ?? 0) + (content.text_body?.length ?? 0);
  let entries = 0;
  for (const field of fields) {
    if (field) entries += field.pieces.length + 2 * field.slots.length + 4 * field.uses.length;
  }
  return 2 * chars + ENTRY_BYTES * entries;
}

/** Parses a version's subject and bodies (linear in their length). */
export function parseContent(content: TemplateContent): ParsedContent {
  const subject = parseField(segments(content.subject), () => 'one-line');
  const html = content.html_body === null ? null : parseHtml(content.html_body);
  const text = content.text_body === null ? null : parseField(segments(content.text_body), () => 'plain');
  return { subject, html, text, weight: weigh(content, [subject, html, text]) };
}
