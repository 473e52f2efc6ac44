/**
 * Builds the RFC 5322 message of a stored send with nodemailer's MailComposer: From, To, Cc,
 * Reply-To, Subject, `Message-ID: <id@sending-domain>`, `Date` (the time the send was accepted,
 * so every attempt carries the same bytes), `MIME-Version`, the threading and RFC 8058 headers
 * as submitted, and the html/text bodies as multipart/alternative.
 *
 * Bcc recipients never appear in the headers: they are only envelope recipients (RFC 5322
 * §3.6.3 allows either; giving them away to every other recipient is the worse choice), so this
 * module is never told about them.
 *
 * Runs in the render worker; pure apart from MailComposer's random MIME boundary.
 */
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { encodeQuotedPrintable, maxEncodedLength, textStats } from './quoted-printable.js';

/** What the composer needs, all plain data so it crosses to a worker thread as a structured clone. */
export interface ComposeFields {
  /** The From header as submitted (display name included). */
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly replyTo: readonly string[];
  readonly subject: string;
  /** UTF-8 bytes (as a render worker reads them) or a string. */
  readonly html: string | Uint8Array | null;
  readonly text: string | Uint8Array | null;
  /** The allowed extra headers (In-Reply-To, References, List-Unsubscribe, List-Unsubscribe-Post). */
  readonly headers: Readonly<Record<string, string>>;
  /** With angle brackets: `<msg_...@example.com>`. */
  readonly messageId: string;
  /** Milliseconds since the epoch. */
  readonly date: number;
}

type Part = string | { readonly content: string; readonly contentTransferEncoding: 'quoted-printable' };

/**
 * @example
 * const bytes = await composeMessage({ from: 'Acme <a@acme.test>', to: ['b@x.test'], cc: [], replyTo: [],
 *   subject: 'Hi', html: '<p>Hi</p>', text: null, headers: {}, messageId: '<msg_1@acme.test>', date: Date.now() });
 */
export async function composeMessage(fields: ComposeFields): Promise<Buffer> {
  const html = fields.html === null ? null : bytesOf(fields.html);
  const text = fields.text === null ? null : bytesOf(fields.text);
  const stats = [html, text].map((bytes) => (bytes === null ? null : textStats(bytes)));
  const latin = stats.reduce((sum, s) => sum + (s?.latin ?? 0), 0);
  const other = stats.reduce((sum, s) => sum + (s?.other ?? 0), 0);
  // MailComposer's rule for a part that is not plain 7-bit text: quoted-printable for mostly
  // Latin text, base64 otherwise; decided once for both parts, as its textEncoding option does.
  const encoding = other < latin ? 'quoted-printable' : 'base64';
  // A quoted-printable part is encoded here (quoted-printable.ts) and spliced in where
  // MailComposer put a placeholder: its own encoder costs more than the DKIM signature.
  const placeholders = new Map<string, Buffer>();
  // The scratch buffers are this call's until the splice (another compose interleaving at the
  // await below, were a worker ever given two tasks at once, allocates its own).
  const useScratch = !scratchBusy;
  scratchBusy = true;
  const part = (bytes: Buffer | null, plain: boolean | undefined): Part | undefined => {
    if (bytes === null) return undefined;
    if (plain || encoding === 'base64') return crlf(bytes.toString('utf8'));
    const token = `posthorn${randomBytes(12).toString('hex')}`;
    const into = useScratch ? scratchFor(placeholders.size, bytes.length) : undefined;
    placeholders.set(token, encodeQuotedPrintable(bytes, into));
    return { content: token, contentTransferEncoding: 'quoted-printable' };
  };
  try {
    const composer = new MailComposer({
      from: fields.from,
      to: [...fields.to],
      cc: fields.cc.length > 0 ? [...fields.cc] : undefined,
      replyTo: fields.replyTo.length > 0 ? [...fields.replyTo] : undefined,
      subject: fields.subject,
      html: part(html, stats[0]?.plain),
      text: part(text, stats[1]?.plain),
      textEncoding: encoding,
      headers: { ...fields.headers },
      messageId: fields.messageId,
      date: new Date(fields.date),
      // The envelope is ours (VERP); never let the composer derive one from the headers.
      envelope: { from: '', to: [] },
    } as ConstructorParameters<typeof MailComposer>[0]);
    const built = await composer.compile().build();
    return placeholders.size === 0 ? built : splice(built, placeholders);
  } finally {
    if (useScratch) scratchBusy = false;
  }
}

function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Bytes left free before a spliced message, where the render task writes DKIM-Signature lines. */
const SIGNATURE_HEADROOM = 2048;
/** Bodies up to this size are encoded into a kept scratch buffer; larger ones get their own. */
const SCRATCH_MAX_INPUT = 1024 * 1024;
/** One scratch buffer per quoted-printable part of a message (html, text), kept between messages. */
const scratch: Buffer[] = [];
let scratchBusy = false;
/** ArrayBuffers of spliced messages: this module allocated them and nobody else holds a view. */
const owned = new WeakSet<ArrayBufferLike>();

/**
 * A reusable output buffer for the `index`th encoded part of a message, or undefined (allocate)
 * for a large body. Each render's quoted-printable output is copied into the message once, so
 * the scratch is free again by the next render; reusing it spares the worker an allocation of
 * three times the body per message (external memory that drove most of its major GCs).
 */
function scratchFor(index: number, inputLength: number): Buffer | undefined {
  if (inputLength > SCRATCH_MAX_INPUT) return undefined;
  const needed = maxEncodedLength(inputLength);
  const current = scratch[index];
  if (current !== undefined && current.length >= needed) return current;
  const grown = Buffer.allocUnsafeSlow(Math.max(needed, (current?.length ?? 0) * 2));
  scratch[index] = grown;
  return grown;
}

/**
 * How many free bytes precede `message` in its own ArrayBuffer (room for signature lines), 0 when
 * it is not a message spliced here. Such a message may be moved to another thread with its buffer.
 */
export function headroomOf(message: Uint8Array): number {
  return owned.has(message.buffer) ? message.byteOffset : 0;
}

/**
 * Puts each encoded part where its placeholder is; each placeholder occurs exactly once. A
 * single-part message ends with a line break MailComposer adds only when the content has none,
 * so there an encoded part's own final CRLF takes its place, as it would have. The result is a view
 * into a buffer of its own with `SIGNATURE_HEADROOM` free bytes in front (`headroomOf`).
 */
function splice(message: Buffer, placeholders: ReadonlyMap<string, Buffer>): Buffer {
  const found = [...placeholders].map(([token, encoded]) => {
    const at = message.indexOf(token, 0, 'latin1');
    if (at < 0 || message.indexOf(token, at + token.length, 'latin1') >= 0) {
      throw new Error('composing the message failed: a body placeholder was not found exactly once');
    }
    const end = at + token.length;
    const last = end + 2 === message.length && endsWithCrlf(encoded);
    return { at, end, encoded: last ? encoded.subarray(0, encoded.length - 2) : encoded };
  });
  found.sort((a, b) => a.at - b.at);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const { at, end, encoded } of found) {
    pieces.push(message.subarray(from, at), encoded);
    from = end;
  }
  pieces.push(message.subarray(from));
  // One allocation for the finished message, with room in front for its signature lines.
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const whole = Buffer.allocUnsafeSlow(SIGNATURE_HEADROOM + length);
  let offset = SIGNATURE_HEADROOM;
  for (const piece of pieces) offset += piece.copy(whole, offset);
  owned.add(whole.buffer);
  return whole.subarray(SIGNATURE_HEADROOM);
}

function endsWithCrlf(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[bytes.length - 2] === 0x0d && bytes[bytes.length - 1] === 0x0a;
}

/**
 * Line breaks as CRLF (RFC 5322 §2.3). MailComposer keeps a body's own line breaks, so a bare LF
 * would reach the wire, where the SMTP client rewrites it: the bytes signed must be the bytes sent.
 */
function crlf(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(/\r\n|\r|\n/g, '\r\n') : text;
}

/** Splits a message at the empty line that ends its header section (RFC 5322 §2.1). */
export function splitHeaderBody(message: Buffer): { readonly header: Buffer; readonly body: Buffer } {
  const end = message.indexOf('\r\n\r\n');
  if (end < 0) return { header: message, body: Buffer.alloc(0) };
  return { header: message.subarray(0, end + 2), body: message.subarray(end + 4) };
}
