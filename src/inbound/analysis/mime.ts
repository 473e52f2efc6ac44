/**
 * Just enough MIME (RFC 2045, RFC 2046) to read machine-written reports: split a message into its
 * parts, decode their transfer encoding, and find the `multipart/report` (RFC 6522) inside. The
 * general parser (mailparser) folds `message/delivery-status` into the text body, which loses the
 * per-recipient structure a DSN carries, so reports are read here.
 *
 * Bytes are handled as latin1 strings so that nothing is re-encoded; only report fields (ASCII, or
 * UTF-8 per RFC 6533) are turned into text. It never throws on malformed input: a part it cannot
 * read simply has no children.
 *
 * Its work is bounded whatever arrives (a message to a bounce or complaint address may be 25 MB of
 * anything): only the first `MAX_REPORT_BYTES` of a message are looked at, and fields per header
 * block, field blocks, parts per multipart and parts in all are capped. A real DSN or ARF report
 * is a few KB, its machine-readable part before the returned message; what lies past a cap is
 * simply not read.
 */

export interface MimePart {
  /** Header fields in order, names lower-cased, values unfolded. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Media type, lower-cased, without parameters ("multipart/report"). */
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
  /** The body with its Content-Transfer-Encoding undone. */
  readonly body: Buffer;
}

export interface Report {
  /** The `report-type` parameter: "delivery-status", "feedback-report", ... */
  readonly reportType: string;
  readonly parts: readonly MimePart[];
}

/** Bytes of a message the report reader looks at. */
export const MAX_REPORT_BYTES = 1024 * 1024;
/** Fields kept from one header block or field block. */
export const MAX_FIELDS = 500;
/** Characters kept of one (unfolded) field value. */
const MAX_VALUE = 16 * 1024;
/** Field blocks read from one report part (a DSN has one per recipient). */
export const MAX_BLOCKS = 1000;
/** Parts read from one multipart, and in all while looking for the report. */
const MAX_CHILDREN = 64;
const MAX_PARTS = 256;
const MAX_DEPTH = 5;

/** Parses one entity: its header block, then its body. */
export function parseEntity(raw: Buffer): MimePart {
  return entityOf(raw.toString('latin1'));
}

function entityOf(text: string): MimePart {
  // The header block ends at the first empty line; a part that starts with one has no header.
  const split = /^\r?\n|\r?\n\r?\n/.exec(text);
  const headerText = split ? text.slice(0, split.index) : text;
  const bodyText = split ? text.slice(split.index + split[0].length) : '';
  const headers = parseHeaderBlock(headerText);
  const contentType = headerValue(headers, 'content-type') ?? 'text/plain';
  const { type, params } = parseContentType(contentType);
  const encoding = (headerValue(headers, 'content-transfer-encoding') ?? '').trim().toLowerCase();
  return { headers, type, params, body: decodeBody(bodyText, encoding) };
}

/** Header fields of a block, unfolded (RFC 5322 §2.2.3); at most `MAX_FIELDS` of them. */
export function parseHeaderBlock(text: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  let last: [string, string] | undefined;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end).replace(/\r$/, '');
    start = end + 1;
    if (/^[ \t]/.test(line)) {
      if (last && last[1].length < MAX_VALUE) last[1] = `${last[1]} ${line.trim()}`.slice(0, MAX_VALUE);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) {
      last = undefined;
      continue;
    }
    if (fields.length >= MAX_FIELDS) break;
    last = [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1, colon + 1 + MAX_VALUE).trim()];
    fields.push(last);
  }
  return fields;
}

export function headerValue(
  headers: ReadonlyArray<readonly [string, string]>,
  name: string,
): string | undefined {
  return headers.find(([key]) => key === name)?.[1];
}

export function parseContentType(value: string): { type: string; params: Record<string, string> } {
  const [head = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  const paramPattern = /;\s*([^=\s;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/g;
  for (const match of `;${rest.join(';')}`.matchAll(paramPattern)) {
    const raw = match[2] ?? '';
    params[(match[1] ?? '').toLowerCase()] = raw.startsWith('"')
      ? raw.slice(1, -1).replace(/\\(.)/g, '$1')
      : raw;
  }
  return { type: head.trim().toLowerCase(), params };
}

/** The parts of a multipart entity, at most `limit` of them; none for anything else. */
export function childrenOf(part: MimePart, limit = MAX_CHILDREN): MimePart[] {
  const boundary = part.params.boundary;
  if (!part.type.startsWith('multipart/') || !boundary) return [];
  const text = part.body.toString('latin1');
  const delimiter = `--${boundary}`;
  const children: MimePart[] = [];
  let contentStart: number | undefined;
  let from = 0;
  while (children.length < limit) {
    const at = text.indexOf(delimiter, from);
    if (at < 0) break;
    from = at + delimiter.length;
    // A delimiter starts a line and is followed only by "--" (the last one) or white space.
    if (at > 0 && text[at - 1] !== '\n') continue;
    const lineEnd = text.indexOf('\n', from);
    const rest = text.slice(from, lineEnd < 0 ? text.length : lineEnd).trimEnd();
    if (rest !== '' && rest !== '--') continue;
    if (contentStart !== undefined) {
      // The line break before a delimiter belongs to the delimiter (RFC 2046 §5.1.1).
      const end = at - (text[at - 2] === '\r' ? 2 : 1);
      children.push(entityOf(text.slice(contentStart, Math.max(contentStart, end))));
    }
    contentStart = undefined;
    if (rest === '--') break;
    contentStart = lineEnd < 0 ? text.length : lineEnd + 1;
  }
  // A last part without its closing delimiter (a truncated message) is read as far as it goes.
  if (contentStart !== undefined && children.length < limit)
    children.push(entityOf(text.slice(contentStart)));
  return children;
}

/**
 * The first `multipart/report` in the message, depth first (a report may be forwarded inside
 * another part), looking only at the first `MAX_REPORT_BYTES` of the message.
 */
export function findReport(raw: Buffer): Report | undefined {
  let budget = MAX_PARTS;
  const search = (part: MimePart, depth: number): Report | undefined => {
    if (part.type === 'multipart/report') {
      return {
        reportType: (part.params['report-type'] ?? '').toLowerCase(),
        parts: childrenOf(part, Math.min(MAX_CHILDREN, Math.max(0, budget))),
      };
    }
    if (depth >= MAX_DEPTH || budget <= 0) return undefined;
    const children = childrenOf(part, Math.min(MAX_CHILDREN, budget));
    budget -= children.length;
    for (const child of children) {
      const found = search(child, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return search(parseEntity(raw.subarray(0, MAX_REPORT_BYTES)), 0);
}

/**
 * Blocks of `Name: value` fields separated by blank lines, as `message/delivery-status` (RFC 3464
 * §2.1) and `message/feedback-report` (RFC 5965 §3.1) carry them; at most `MAX_BLOCKS`. Names are
 * lower-cased; a field that repeats keeps every value.
 */
export function fieldBlocks(body: Buffer): Array<Map<string, string[]>> {
  const text = body.toString('utf8');
  const separator = /\r?\n[ \t]*\r?\n/g;
  const blocks: Array<Map<string, string[]>> = [];
  let start = 0;
  while (blocks.length < MAX_BLOCKS && start <= text.length) {
    const match = separator.exec(text);
    const end = match ? match.index : text.length;
    const fields = parseHeaderBlock(text.slice(start, end));
    start = match ? match.index + match[0].length : text.length + 1;
    if (fields.length === 0) continue;
    const block = new Map<string, string[]>();
    for (const [name, value] of fields) {
      const values = block.get(name);
      if (values) values.push(value);
      else block.set(name, [value]);
    }
    blocks.push(block);
  }
  return blocks;
}

/** The original message's header block, from a `message/rfc822`, `message/global` or `text/rfc822-headers` part. */
export function originalHeaders(parts: readonly MimePart[]): Array<[string, string]> | undefined {
  const original = parts.find((part) =>
    ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers'].includes(part.type),
  );
  if (!original) return undefined;
  const text = original.body.toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  return parseHeaderBlock(end ? text.slice(0, end.index) : text);
}

function decodeBody(text: string, encoding: string): Buffer {
  if (encoding === 'base64') return Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const decoded = text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(decoded, 'latin1');
  }
  return Buffer.from(text, 'latin1');
}
