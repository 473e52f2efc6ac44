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
import MailComposer from 'nodemailer/lib/mail-composer';

/** What the composer needs, all plain data so it crosses to a worker thread as a structured clone. */
export interface ComposeFields {
  /** The From header as submitted (display name included). */
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly replyTo: readonly string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  /** The allowed extra headers (In-Reply-To, References, List-Unsubscribe, List-Unsubscribe-Post). */
  readonly headers: Readonly<Record<string, string>>;
  /** With angle brackets: `<msg_...@example.com>`. */
  readonly messageId: string;
  /** Milliseconds since the epoch. */
  readonly date: number;
}

/**
 * @example
 * const bytes = await composeMessage({ from: 'Acme <a@acme.test>', to: ['b@x.test'], cc: [], replyTo: [],
 *   subject: 'Hi', html: '<p>Hi</p>', text: null, headers: {}, messageId: '<msg_1@acme.test>', date: Date.now() });
 */
export async function composeMessage(fields: ComposeFields): Promise<Buffer> {
  const html = fields.html === null ? undefined : crlf(fields.html);
  const text = fields.text === null ? undefined : crlf(fields.text);
  const composer = new MailComposer({
    from: fields.from,
    to: [...fields.to],
    cc: fields.cc.length > 0 ? [...fields.cc] : undefined,
    replyTo: fields.replyTo.length > 0 ? [...fields.replyTo] : undefined,
    subject: fields.subject,
    html,
    text,
    // Decided once here; left to MailComposer it is worked out again for every part and pass.
    textEncoding: transferEncoding(html ?? '', text ?? ''),
    headers: { ...fields.headers },
    messageId: fields.messageId,
    date: new Date(fields.date),
    // The envelope is ours (VERP); never let the composer derive one from the headers.
    envelope: { from: '', to: [] },
  });
  return composer.compile().build();
}

/**
 * quoted-printable for mostly Latin text, base64 otherwise: MailComposer's own rule (more Latin
 * letters than 8-bit and control characters), computed in one pass.
 */
export function transferEncoding(...values: readonly string[]): 'quoted-printable' | 'base64' {
  // Printable ASCII only (the usual case): native scans decide it.
  if (values.every((value) => !NOT_PRINTABLE_ASCII.test(value))) {
    return values.some((value) => /[A-Za-z]/.test(value)) ? 'quoted-printable' : 'base64';
  }
  let latin = 0;
  let other = 0;
  for (const value of values) {
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80 || code < 0x09 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f))
        other++;
      else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
    }
  }
  return other < latin ? 'quoted-printable' : 'base64';
}

const NOT_PRINTABLE_ASCII = /[^\t\n\r\x20-\x7e]/;

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
