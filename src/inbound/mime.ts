/**
 * Just enough MIME (RFC 2045, RFC 2046) to read machine-written reports: split a message into its
 * parts, decode their transfer encoding, and find the `multipart/report` (RFC 6522) inside. The
 * general parser (mailparser) folds `message/delivery-status` into the text body, which loses the
 * per-recipient structure a DSN carries, so reports are read here.
 *
 * Bytes are handled as latin1 strings so that nothing is re-encoded; only report fields (ASCII, or
 * UTF-8 per RFC 6533) are turned into text. It never throws on malformed input: a part it cannot
 * read simply has no children.
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

const MAX_DEPTH = 5;

/** Parses one entity: its header block, then its body. */
export function parseEntity(raw: Buffer): MimePart {
  const text = raw.toString('latin1');
  const split = /\r?\n\r?\n/.exec(text);
  const headerText = split ? text.slice(0, split.index) : text;
  const bodyText = split ? text.slice(split.index + split[0].length) : '';
  const headers = parseHeaderBlock(headerText);
  const contentType = headerValue(headers, 'content-type') ?? 'text/plain';
  const { type, params } = parseContentType(contentType);
  const encoding = (headerValue(headers, 'content-transfer-encoding') ?? '').trim().toLowerCase();
  return { headers, type, params, body: decodeBody(bodyText, encoding) };
}

/** Header fields of a block, unfolded (RFC 5322 §2.2.3). */
export function parseHeaderBlock(text: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length > 0) {
      const last = fields[fields.length - 1] as [string, string];
      last[1] = `${last[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
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

/** The parts of a multipart entity; none for anything else. */
export function childrenOf(part: MimePart): MimePart[] {
  const boundary = part.params.boundary;
  if (!part.type.startsWith('multipart/') || !boundary) return [];
  const text = part.body.toString('latin1');
  const delimiter = `--${boundary}`;
  const children: MimePart[] = [];
  let current: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trimEnd();
    if (trimmed === `${delimiter}--`) break;
    if (trimmed === delimiter) {
      if (current) children.push(parseEntity(Buffer.from(current.join('\r\n'), 'latin1')));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) children.push(parseEntity(Buffer.from(current.join('\r\n'), 'latin1')));
  return children;
}

/** The first `multipart/report` in the message, depth first (a report may be forwarded inside another part). */
export function findReport(raw: Buffer): Report | undefined {
  const search = (part: MimePart, depth: number): Report | undefined => {
    if (part.type === 'multipart/report') {
      return { reportType: (part.params['report-type'] ?? '').toLowerCase(), parts: childrenOf(part) };
    }
    if (depth >= MAX_DEPTH) return undefined;
    for (const child of childrenOf(part)) {
      const found = search(child, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return search(parseEntity(raw), 0);
}

/**
 * Blocks of `Name: value` fields separated by blank lines, as `message/delivery-status` (RFC 3464
 * §2.1) and `message/feedback-report` (RFC 5965 §3.1) carry them. Names are lower-cased; a field
 * that repeats keeps every value.
 */
export function fieldBlocks(body: Buffer): Array<Map<string, string[]>> {
  const blocks: Array<Map<string, string[]>> = [];
  for (const chunk of body.toString('utf8').split(/\r?\n[ \t]*\r?\n/)) {
    const fields = parseHeaderBlock(chunk);
    if (fields.length === 0) continue;
    const block = new Map<string, string[]>();
    for (const [name, value] of fields) block.set(name, [...(block.get(name) ?? []), value]);
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
