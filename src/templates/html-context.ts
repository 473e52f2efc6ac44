/**
 * Where each placeholder of an HTML body sits. In text, a comment, a raw-text element or a
 * quoted attribute value, `escapeHtml` makes a value inert. Inside a tag outside quotes
 * (`<a href={{url}}>`, `<td {{attrs}}>`, `<{{tag}}>`) a space, `=` or backtick in the value
 * would end the attribute and start another (`onmouseover=...`), so there the renderer escapes
 * those too and the check warns.
 *
 * A small state machine after HTML §13.2.5 (tokenization), enough to tell these places apart in
 * hand-written email markup; it is not a parser. It runs on every send of an HTML template, so
 * it is linear and allocates nothing per tag: text, comments, quoted values and raw-text
 * elements are crossed with searches, only tag interiors a character at a time.
 */
import type { Segment } from './placeholders.js';

export type HtmlContext = 'text' | 'tag';

type Kind = 'data' | 'comment' | 'raw' | 'tag-open' | 'tag' | 'value' | 'unquoted' | 'dq' | 'sq';

/** Elements whose content is text up to their end tag (HTML §13.1.2, raw and escapable raw text). */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes']);
const LONGEST_RAW_TEXT = 8;

const isSpace = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;

class Tokenizer {
  kind: Kind = 'data';
  /** The lower-case name of the start tag being read or of the raw-text element, when it may be one; else ''. */
  tag = '';

  /** Reads literal text. */
  read(text: string): void {
    let i = 0;
    while (i < text.length) {
      switch (this.kind) {
        case 'data':
          i = this.#data(text, i);
          break;
        case 'comment':
          i = this.#until(text, text.indexOf('-->', i), 3, 'data');
          break;
        case 'raw':
          i = this.#until(text, endTagAt(text, this.tag, i), 0, 'data');
          break;
        case 'dq':
          i = this.#until(text, text.indexOf('"', i), 1, 'tag');
          break;
        case 'sq':
          i = this.#until(text, text.indexOf("'", i), 1, 'tag');
          break;
        default:
          this.#step(text.charCodeAt(i));
          i++;
      }
    }
  }

  /** Reads a placeholder; returns where it sits. */
  placeholder(): HtmlContext {
    switch (this.kind) {
      case 'tag-open': // the value is the tag's name
        this.kind = 'tag';
        this.tag = '';
        return 'tag';
      case 'value':
        this.kind = 'unquoted';
        return 'tag';
      case 'tag':
      case 'unquoted':
        return 'tag';
      default:
        return 'text';
    }
  }

  /** Moves to `next` past a delimiter found at `at` (of length `skip`), or to the end of `text`. */
  #until(text: string, at: number, skip: number, next: Kind): number {
    if (at < 0) return text.length;
    this.kind = next;
    if (next === 'data') this.tag = '';
    return at + skip;
  }

  #data(text: string, from: number): number {
    const lt = text.indexOf('<', from);
    if (lt < 0) return text.length;
    if (text.startsWith('<!--', lt)) {
      this.kind = 'comment';
      return lt + 4;
    }
    const end = text.charCodeAt(lt + 1) === 0x2f ? lt + 2 : lt + 1; // `</`
    if (end >= text.length) {
      this.kind = 'tag-open';
      return text.length;
    }
    if (!isLetter(text.charCodeAt(end))) return lt + 1; // `a < b` is text
    let i = end + 1;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (isSpace(code) || code === 0x2f || code === 0x3e) break;
      i++;
    }
    this.kind = 'tag';
    const start = end === lt + 1 && i - end <= LONGEST_RAW_TEXT;
    this.tag = start ? text.slice(end, i).toLowerCase() : '';
    return i;
  }

  /** One character inside a tag. */
  #step(code: number): void {
    if (code === 0x3e) {
      // `>` ends the tag
      this.kind = RAW_TEXT.has(this.tag) ? 'raw' : 'data';
      if (this.kind === 'data') this.tag = '';
      return;
    }
    switch (this.kind) {
      case 'tag':
        if (code === 0x3d) this.kind = 'value';
        return;
      case 'value':
        if (isSpace(code)) return;
        this.kind = code === 0x22 ? 'dq' : code === 0x27 ? 'sq' : 'unquoted';
        return;
      case 'unquoted':
        if (isSpace(code)) this.kind = 'tag';
        return;
      default:
        this.kind = 'data'; // `<` then something that is not a name
    }
  }
}

/**
 * Where the end tag of a raw-text element starts, from `from` on; -1 if none. Searched without
 * lower-casing the text (lower-casing can change a string's length, and so its positions).
 */
function endTagAt(text: string, name: string, from: number): number {
  const pattern = new RegExp(`</${name}`, 'gi');
  pattern.lastIndex = from;
  return pattern.exec(text)?.index ?? -1;
}

/** The context of each placeholder of `parts`, in order. */
export function placeholderContexts(parts: readonly Segment[]): HtmlContext[] {
  const tokenizer = new Tokenizer();
  const contexts: HtmlContext[] = [];
  for (const part of parts) {
    if (typeof part === 'string') tokenizer.read(part);
    else contexts.push(tokenizer.placeholder());
  }
  return contexts;
}
