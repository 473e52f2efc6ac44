/**
 * A tolerant scan of an HTML email body for the template check: start tags with their
 * attributes, and the CSS of `<style>` blocks and `style` attributes. It is not a full HTML5
 * parser and never rewrites anything; it only has to find what email clients trip over, in
 * markup that is often hand-written and broken.
 */

export interface HtmlTag {
  /** Lower case. */
  readonly name: string;
  /** Lower-case attribute names; values with character references decoded; `''` for bare attributes. */
  readonly attrs: ReadonlyMap<string, string>;
}

export interface HtmlScan {
  readonly tags: readonly HtmlTag[];
  /** Contents of `<style>` elements and of `style` attributes, comments removed. */
  readonly css: readonly string[];
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  colon: ':',
  tab: '\t',
  newline: '\n',
  nbsp: '\u00a0',
};

/** Decodes the character references that can hide a scheme or a quote (HTML §13.5). */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X'
          ? Number.parseInt(ref.slice(2), 16)
          : Number.parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

const TAG_START = /<([a-zA-Z][a-zA-Z0-9:-]*)/y;
const ATTR = /\s*([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;
const RAW_TEXT = new Set(['style', 'script', 'title', 'textarea']);
const END_TAGS = new Map([...RAW_TEXT].map((name) => [name, new RegExp(`</${name}`, 'gi')]));

/**
 * Where the end tag of a raw-text element starts, from `from` on; -1 if none. Searched without
 * lower-casing the HTML (doing so for every such element was quadratic, and lower-casing can
 * change the length of a string, so positions in the copy are not positions in the HTML).
 */
function endTagAt(html: string, name: string, from: number): number {
  const pattern = END_TAGS.get(name) as RegExp;
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

/** CSS without its comments; one left open runs to the end (CSS Syntax §4.3.2). */
function stripCssComments(css: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = css.indexOf('/*', from);
    if (open < 0) return out + css.slice(from);
    out += `${css.slice(from, open)} `;
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return out;
    from = close + 2;
  }
}

export function scanHtml(html: string): HtmlScan {
  const tags: HtmlTag[] = [];
  const css: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    TAG_START.lastIndex = lt;
    const start = TAG_START.exec(html);
    if (!start) {
      i = lt + 1;
      continue;
    }
    const name = (start[1] as string).toLowerCase();
    const attrs = new Map<string, string>();
    let j = TAG_START.lastIndex;
    for (;;) {
      ATTR.lastIndex = j;
      const attr = ATTR.exec(html);
      if (!attr || attr[0].length === 0) break;
      const key = (attr[1] as string).toLowerCase();
      if (!attrs.has(key)) attrs.set(key, decodeEntities(attr[2] ?? attr[3] ?? attr[4] ?? ''));
      j = ATTR.lastIndex;
    }
    const gt = html.indexOf('>', j);
    i = gt < 0 ? html.length : gt + 1;
    tags.push({ name, attrs });
    const style = attrs.get('style');
    if (style) css.push(stripCssComments(style));
    if (RAW_TEXT.has(name)) {
      const close = endTagAt(html, name, i);
      const body = html.slice(i, close < 0 ? html.length : close);
      if (name === 'style') css.push(stripCssComments(body));
      i = close < 0 ? html.length : close;
    }
  }
  return { tags, css };
}
