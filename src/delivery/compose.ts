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
  const composer = new MailComposer({
    from: fields.from,
    to: [...fields.to],
    cc: fields.cc.length > 0 ? [...fields.cc] : undefined,
    replyTo: fields.replyTo.length > 0 ? [...fields.replyTo] : undefined,
    subject: fields.subject,
    html: fields.html ?? undefined,
    text: fields.text ?? undefined,
    headers: { ...fields.headers },
    messageId: fields.messageId,
    date: new Date(fields.date),
    // The envelope is ours (VERP); never let the composer derive one from the headers.
    envelope: { from: '', to: [] },
  });
  return composer.compile().build();
}

/** Splits a message at the empty line that ends its header section (RFC 5322 §2.1). */
export function splitHeaderBody(message: Buffer): { readonly header: Buffer; readonly body: Buffer } {
  const end = message.indexOf('\r\n\r\n');
  if (end < 0) return { header: message, body: Buffer.alloc(0) };
  return { header: message.subarray(0, end + 2), body: message.subarray(end + 4) };
}
