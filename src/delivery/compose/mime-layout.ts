/**
 * Writes a MIME tree that MailComposer compiled, byte for byte as MimeNode's `build()` streams it
 * (nodemailer 10.6, mime-node `stream()`), but synchronously and into one buffer: each node's
 * header block (`buildHeaders()`), an empty line, its content; for a multipart node each child
 * after its boundary line, then the closing boundary; and a final line break when the message has
 * none (LastNewline). A test compares the two on trees of every shape compose.ts makes.
 *
 * Content is never encoded here: each content node holds a placeholder string, and `contents`
 * maps it to the bytes to write (encoded by compose.ts). Nothing else may be in the tree: no raw
 * nodes, streams, transforms or newline conversion, which only the streaming build implements.
 *
 * It also tells whether the body (all but the top header block) has white space that relaxed
 * DKIM body canonicalization rewrites, so the signer need not search 100 KB for it.
 */
import type MailComposer from 'nodemailer/lib/mail-composer';

type MimeNode = ReturnType<MailComposer['compile']>;

/** A CR not followed by LF, or an LF without a CR before it. */
const BARE_LINE_BREAK = /\r(?!\n)|(?<!\r)\n/;
/** White space relaxed body canonicalization rewrites (RFC 6376 §3.4.4): a tab, a run, at a line end. */
const FOLDED_WHITESPACE = /\t| {2}| \r\n| $/;

/** A part's content as it is written, and whether it has white space of `FOLDED_WHITESPACE`. */
export interface EncodedContent {
  readonly bytes: Buffer;
  /** True when the bytes have a tab, a run of white space, or white space at a line end or the end. */
  readonly foldsWhitespace: boolean;
}

export interface WrittenMessage {
  readonly message: Buffer;
  /** Whether relaxed body canonicalization would fold white space in the body. */
  readonly foldsWhitespace: boolean;
}

/**
 * The message, `headroom` bytes into a buffer from `allocate` (asked for headroom + message
 * length, it returns at least that much); the returned view starts after the headroom.
 *
 * @example
 * const { message } = writeTree(composer.compile(),
 *   new Map([['posthorn-html-part', { bytes: encoded, foldsWhitespace: false }]]), 2048);
 */
export function writeTree(
  root: MimeNode,
  contents: ReadonlyMap<string, EncodedContent>,
  headroom: number,
  allocate: (size: number) => Buffer = Buffer.allocUnsafeSlow,
): WrittenMessage {
  const pieces: (string | Buffer)[] = [];
  const body = { folds: false };
  collect(root, contents, pieces, body);
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const ending = finalLineBreak(pieces);
  const size = headroom + length + ending.length;
  const whole = allocate(size);
  let offset = headroom;
  for (const piece of pieces) {
    offset += typeof piece === 'string' ? whole.write(piece, offset, 'utf8') : piece.copy(whole, offset);
  }
  whole.write(ending, offset, 'latin1');
  return { message: whole.subarray(headroom, size), foldsWhitespace: body.folds };
}

function collect(
  node: MimeNode,
  contents: ReadonlyMap<string, EncodedContent>,
  pieces: (string | Buffer)[],
  body: { folds: boolean },
): void {
  const internals = node as unknown as { _raw: unknown; _transforms: unknown[]; _processFuncs: unknown[] };
  if (
    internals._raw ||
    internals._transforms.length > 0 ||
    internals._processFuncs.length > 0 ||
    node.newline
  ) {
    throw new Error(
      'composing the message failed: the MIME tree has a part only a streaming build can write',
    );
  }
  // Also decides `multipart` and `boundary` (MimeNode sets them while building the headers).
  const headers = node.buildHeaders();
  if (BARE_LINE_BREAK.test(headers)) {
    throw new Error('composing the message failed: a header has a line break that is not CRLF');
  }
  // Every header block but the top one is part of the body.
  const text = (piece: string) => {
    if (pieces.length > 0 && FOLDED_WHITESPACE.test(piece)) body.folds = true;
    pieces.push(piece);
  };
  text(`${headers}\r\n\r\n`);
  if (node.content) {
    const content = typeof node.content === 'string' ? contents.get(node.content) : undefined;
    if (content === undefined) throw new Error('composing the message failed: a part has no encoded content');
    if (content.foldsWhitespace) body.folds = true;
    pieces.push(content.bytes);
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    text(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`);
    collect(child, contents, pieces, body);
  });
  text(`\r\n--${node.boundary}--\r\n`);
}

/** What LastNewline appends: nothing after an LF, an LF after a CR, else CRLF. */
function finalLineBreak(pieces: readonly (string | Buffer)[]): string {
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i] as string | Buffer;
    if (piece.length === 0) continue;
    const last = typeof piece === 'string' ? piece.charCodeAt(piece.length - 1) : piece[piece.length - 1];
    return last === 0x0a ? '' : last === 0x0d ? '\n' : '\r\n';
  }
  return '\r\n';
}
