/**
 * Routed mail parsed with mailparser into the fields the API shows (from, to, cc, reply-to,
 * subject, text, html, headers, date, Message-ID, threading fields) and its attachments, once for
 * every project it goes to. Runs on the analyzer's threads; storing it is `threads/received.ts`.
 */
import { type AddressObject, simpleParser } from 'mailparser';
import { messageIdOf } from './dsn.js';

/** A received message, parsed once for every project it goes to. */
export interface ParsedInbound {
  readonly fromHeader: string;
  readonly fromEmail: string;
  readonly to: string[];
  readonly cc: string[];
  readonly replyTo: string[];
  readonly subject: string;
  readonly text: string | null;
  readonly html: string | null;
  readonly headers: Array<[string, string]>;
  readonly date: number | null;
  readonly messageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: string[];
  readonly attachments: ReadonlyArray<{
    readonly filename: string | null;
    readonly contentType: string;
    readonly contentId: string | null;
    readonly disposition: string;
    readonly content: Buffer;
  }>;
  /** Set when mailparser refused the message and this is the fallback (`received-fallback.ts`). */
  readonly parseError: string | null;
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const objects = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return objects.flatMap((object) =>
    object.value
      .flatMap((entry) => [entry, ...(entry.group ?? [])])
      .flatMap((entry) => (entry.address ? [entry.address] : [])),
  );
}

export async function parseInbound(raw: Buffer): Promise<ParsedInbound> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  const references =
    mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : [mail.references];
  return {
    fromHeader: mail.from?.text ?? '',
    fromEmail: mail.from?.value[0]?.address ?? '',
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    replyTo: addresses(mail.replyTo),
    subject: mail.subject ?? '',
    text: mail.text || null,
    html: mail.html || null,
    headers: mail.headerLines.map(({ key, line }) => {
      const colon = line.indexOf(':');
      return [
        key,
        line
          .slice(colon + 1)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
      ];
    }),
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.getTime() : null,
    messageId: messageIdOf(mail.messageId),
    inReplyTo: messageIdOf(mail.inReplyTo),
    references: references
      .flatMap((value) => value.split(/\s+/))
      .flatMap((value) => messageIdOf(value) ?? []),
    attachments: mail.attachments.map((attachment) => ({
      filename: attachment.filename ?? null,
      contentType: attachment.contentType || 'application/octet-stream',
      contentId: attachment.cid ?? null,
      disposition: attachment.contentDisposition ?? 'attachment',
      content: attachment.content,
    })),
    parseError: null,
  };
}
