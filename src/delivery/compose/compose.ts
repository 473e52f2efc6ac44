/**
 * Room `delivery/compose/`, after routing. A message's bytes: composed from its stored send (this
 * file, with mime-layout.ts and quoted-printable.ts), DKIM-signed with its domain's keys
 * (signing-keys.ts, relaxed-body.ts), dot-stuffed for DATA, all on the render workers
 * (render-task.ts, renderer.ts); a live message is rendered once at admission and stored
 * (prerender.ts, raw-store.ts) so each job and retry relays the same signed bytes.
 *
 * It must never run the MIME encoding or the RSA arithmetic on the event loop, nor open a network
 * connection.
 *
 * Builds the RFC 5322 message of a stored send with nodemailer's MailComposer: From, To, Cc,
 * Reply-To, Subject, `Message-ID: <id@sending-domain>`, `Date` (the time the send was accepted,
 * so every attempt carries the same bytes), `MIME-Version`, the threading and RFC 8058 headers
 * as submitted, and the html/text bodies as multipart/alternative.
 *
 * Bcc recipients never appear in the headers: they are only envelope recipients (RFC 5322
 * §3.6.3 allows either; giving them away to every other recipient is the worse choice), so this
 * module is never told about them.
 *
 * MailComposer decides the structure and writes every header (`compile()`, `buildHeaders()`);
 * the bodies are encoded here (quoted-printable.ts) and the tree is written out synchronously
 * (mime-layout.ts) into one buffer, instead of through MimeNode's stream pipeline, whose streams,
 * abort controllers and copies cost more than the RSA signature. The output is CRLF-only: the
 * API refuses line breaks in every header value, and each encoder writes CRLF. Room is left in
 * front of it for the DKIM-Signature lines, so signing adds no copy.
 *
 * Runs in the render worker; pure apart from the random MIME boundary.
 */
import { wrap as wrapBase64 } from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import { randomHex } from '../../platform/ids.js';
import { type EncodedContent, type WrittenMessage, writeTree } from './mime-layout.js';
import {
  encodeQuotedPrintable,
  isPlain,
  latinLettersExceed,
  maxEncodedLength,
  type TextScan,
} from './quoted-printable.js';

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

type TransferEncoding = '7bit' | 'quoted-printable' | 'base64';

/** What MailComposer is given as a part's content: it stands for the bytes encoded here. */
const PLACEHOLDER = { html: 'posthorn-html-part', text: 'posthorn-text-part' } as const;

/** Bytes left free before a composed message, where the render task writes DKIM-Signature lines. */
export const SIGNATURE_HEADROOM = 2048;
/** Bodies up to this size are encoded into a kept scratch buffer; larger ones get their own. */
const SCRATCH_MAX_INPUT = 1024 * 1024;
/** One scratch buffer per text part (html, text), kept between messages. */
const scratch: Buffer[] = [];

/**
 * The message, `SIGNATURE_HEADROOM` bytes into `into` when it fits there (a render worker's
 * shared slot), else into a buffer of its own with that room in front; and whether its body has
 * white space that relaxed DKIM canonicalization folds.
 *
 * @example
 * const { message } = composeMessage({ from: 'Acme <a@acme.test>', to: ['b@x.test'], cc: [], replyTo: [],
 *   subject: 'Hi', html: '<p>Hi</p>', text: null, headers: {}, messageId: '<msg_1@acme.test>', date: Date.now() });
 */
export function composeMessage(fields: ComposeFields, into?: Buffer): WrittenMessage {
  const parts = { html: bytesOf(fields.html), text: bytesOf(fields.text) };
  const encoded = encodeParts(parts);
  const composer = new MailComposer({
    from: fields.from,
    to: [...fields.to],
    cc: fields.cc.length > 0 ? [...fields.cc] : undefined,
    replyTo: fields.replyTo.length > 0 ? [...fields.replyTo] : undefined,
    subject: subjectHeader(fields.subject),
    html: encoded.html && { content: PLACEHOLDER.html, contentTransferEncoding: encoded.html.encoding },
    text: encoded.text && { content: PLACEHOLDER.text, contentTransferEncoding: encoded.text.encoding },
    headers: { ...fields.headers },
    messageId: fields.messageId,
    date: new Date(fields.date),
    // The envelope is ours (VERP); never let the composer derive one from the headers.
    envelope: { from: '', to: [] },
    // Each node would otherwise draw its own random boundary base from the kernel.
    baseBoundary: randomHex(8),
  } as ConstructorParameters<typeof MailComposer>[0]);
  const contents = new Map<string, EncodedContent>();
  if (encoded.html) contents.set(PLACEHOLDER.html, encoded.html);
  if (encoded.text) contents.set(PLACEHOLDER.text, encoded.text);
  const allocate = (size: number) =>
    into !== undefined && size <= into.length ? into : Buffer.allocUnsafeSlow(size);
  return writeTree(composer.compile(), contents, SIGNATURE_HEADROOM, allocate);
}

/** RFC 5322 §2.1.1: a line MUST be at most 998 characters (excluding CRLF). */
const MAX_LINE = 998;
/** Runs without white space at most this long fit one folded line, behind up to 76 blanks. */
const LONGEST_FOLDABLE_RUN = 900;
const unfoldableRun = new RegExp(`\\S{${LONGEST_FOLDABLE_RUN + 1}}`);

/**
 * The Subject as MailComposer is to write it. It folds a header only at white space and leaves
 * printable ASCII as it is, so a run of 998 or more characters without white space (a long
 * subject from the API, or a template variable) would go out as one line over
 * RFC 5322 §2.1.1's limit. Such a subject is sent as RFC 2047 encoded words instead: they split
 * anywhere, fold at the spaces between them, and decode to the same text (§6.2).
 */
function subjectHeader(subject: string): string | { prepared: true; foldLines: true; value: string } {
  if (subject.length + 'Subject: '.length <= MAX_LINE || !unfoldableRun.test(subject)) return subject;
  return { prepared: true, foldLines: true, value: encodeWord(subject, 'Q', 52) };
}

interface EncodedPart extends EncodedContent {
  readonly encoding: TransferEncoding;
}

/**
 * Encodes each part by MailComposer's rules: 7bit for short ASCII lines; otherwise
 * quoted-printable for mostly Latin text and base64 for the rest, decided once for both parts as
 * its `textEncoding` choice is. The quoted-printable encoding is made first (it also measures the
 * text); a part sent another way drops it. An empty body is no part, as with MailComposer.
 */
function encodeParts(parts: { html: Buffer | null; text: Buffer | null }): {
  html: EncodedPart | null;
  text: EncodedPart | null;
} {
  const scan = (): TextScan => ({ other: 0, longestLine: 0, foldsWhitespace: false });
  const scans = { html: scan(), text: scan() };
  const qp = {
    html: parts.html && encodeQuotedPrintable(parts.html, scratchFor(0, parts.html.length), scans.html),
    text: parts.text && encodeQuotedPrintable(parts.text, scratchFor(1, parts.text.length), scans.text),
  };
  const present = [parts.html, parts.text].filter((p): p is Buffer => p !== null);
  const other = scans.html.other + scans.text.other;
  let choice: TransferEncoding | undefined;
  const encode = (bytes: Buffer | null, scan: TextScan, quoted: Buffer | null): EncodedPart | null => {
    if (bytes === null || quoted === null) return null;
    if (isPlain(bytes, scan)) {
      const plain = crlf(bytes);
      return { encoding: '7bit', bytes: plain, foldsWhitespace: foldsWhitespace(plain) };
    }
    choice ??= latinLettersExceed(present, other) ? 'quoted-printable' : 'base64';
    if (choice === 'quoted-printable')
      return { encoding: choice, bytes: quoted, foldsWhitespace: scan.foldsWhitespace };
    const base64 = Buffer.from(wrapBase64(crlf(bytes).toString('base64'), 76), 'latin1');
    return { encoding: choice, bytes: base64, foldsWhitespace: false };
  };
  return { html: encode(parts.html, scans.html, qp.html), text: encode(parts.text, scans.text, qp.text) };
}

/** Whether text sent as itself has white space relaxed canonicalization folds (mime-layout.ts). */
function foldsWhitespace(bytes: Buffer): boolean {
  const last = bytes[bytes.length - 1];
  return (
    bytes.indexOf(0x09) !== -1 ||
    bytes.indexOf('  ') !== -1 ||
    bytes.indexOf(' \r\n') !== -1 ||
    last === 0x20 ||
    last === 0x09
  );
}

function bytesOf(body: string | Uint8Array | null): Buffer | null {
  if (body === null || body.length === 0) return null;
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * A reusable output buffer for the `index`th encoded part of a message, or undefined (allocate)
 * for a large body. The encoded part is copied into the message before the next compose starts
 * (composing is synchronous), so the scratch is free again; reusing it spares the worker an
 * allocation of three times the body per message (external memory that drove its major GCs).
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
 * Line breaks as CRLF (RFC 5322 §2.3). MailComposer keeps a body's own line breaks, so a bare LF
 * would reach the wire, where the SMTP client rewrites it: the bytes signed must be the bytes sent.
 */
function crlf(bytes: Buffer): Buffer {
  if (bytes.indexOf(0x0a) === -1 && bytes.indexOf(0x0d) === -1) return bytes;
  return Buffer.from(bytes.toString('utf8').replace(/\r\n|\r|\n/g, '\r\n'), 'utf8');
}

/** Splits a message at the empty line that ends its header section (RFC 5322 §2.1). */
export function splitHeaderBody(message: Buffer): { readonly header: Buffer; readonly body: Buffer } {
  const end = message.indexOf('\r\n\r\n');
  if (end < 0) return { header: message, body: Buffer.alloc(0) };
  return { header: message.subarray(0, end + 2), body: message.subarray(end + 4) };
}
