/**
 * Routed mail: a received message, parsed on the analyzer's threads (`analysis/parse.ts`), stored
 * for each project it was routed to, joined to a thread, with an `email.received` event in the
 * same transaction. Attachments are stored `pending`; the scan engine decides whether they may
 * ever be downloaded. A message stored without processing (`processingError`, a suspected poison
 * message: `processor-poison.ts`) has one attachment, the whole message, stored `error`: it is
 * never scanned nor downloadable.
 */
import { createHash } from 'node:crypto';
import type { EventService } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { AuthResults } from '../analysis/authenticate.js';
import type { ParsedInbound } from '../analysis/parse.js';
import type { SpoolEnvelope } from '../listener/spool.js';
import type { InboundStore } from '../store.js';
import { referencedIds, type Threads } from './threads.js';

export interface RoutedDelivery {
  readonly projectId: string;
  readonly routeId: string;
  readonly rcptTo: readonly string[];
}

/** Writes one received message for one project; returns its ID and the attachments it has to scan. */
export async function storeReceived(
  trx: Db,
  deps: { readonly store: InboundStore; readonly threads: Threads; readonly events: EventService },
  input: {
    readonly envelope: SpoolEnvelope;
    readonly size: number;
    readonly delivery: RoutedDelivery;
    readonly mail: ParsedInbound;
    readonly auth: AuthResults;
    /** Set when the message is stored without processing: why. */
    readonly processingError?: string | undefined;
  },
): Promise<{ id: string; attachments: number }> {
  const { envelope, delivery, mail } = input;
  const processingError = input.processingError ?? null;
  const at = envelope.receivedAt;
  const id = newId('inb', at);
  const threadId = await deps.threads.joinInbound(trx, {
    projectId: delivery.projectId,
    inboundId: id,
    messageId: mail.messageId,
    references: referencedIds(mail.inReplyTo, mail.references),
    subject: mail.subject,
    at,
  });
  await deps.store.insertMessage(trx, {
    id,
    project_id: delivery.projectId,
    receipt_id: envelope.id,
    route_id: delivery.routeId,
    thread_id: threadId,
    mail_from: envelope.mailFrom,
    rcpt_to: JSON.stringify(delivery.rcptTo),
    ...parsedColumns(mail, input.auth),
    remote_ip: envelope.remoteIp,
    helo: envelope.helo,
    tls: envelope.tls ? 1 : 0,
    size_bytes: input.size,
    created_at: at,
    processing_error: processingError,
  });
  const owner = { projectId: delivery.projectId, messageId: id, at };
  const attachments = attachmentRows(mail, owner, processingError === null ? 'pending' : 'error');
  await deps.store.insertAttachments(trx, attachments);
  // In the processor's group commit (on SQLite the prepared append, on PostgreSQL through `trx`).
  await deps.events.appendWithin(trx, {
    projectId: delivery.projectId,
    type: 'email.received',
    at,
    data: receivedEventData({
      id,
      threadId,
      routeId: delivery.routeId,
      mail,
      at,
      attachments,
      ...(processingError === null ? {} : { processing: { state: 'failed', error: processingError } }),
    }),
  });
  return { id, attachments: processingError === null ? attachments.length : 0 };
}

/** The columns of a received message that its parsing and authentication give. */
export function parsedColumns(mail: ParsedInbound, auth: AuthResults) {
  return {
    from_header: mail.fromHeader,
    from_email: mail.fromEmail,
    to: JSON.stringify(mail.to),
    cc: JSON.stringify(mail.cc),
    reply_to: JSON.stringify(mail.replyTo),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: JSON.stringify(mail.headers),
    date: mail.date,
    message_id_header: mail.messageId,
    in_reply_to: mail.inReplyTo,
    references: JSON.stringify(mail.references),
    auth: JSON.stringify(auth),
    parse_error: mail.parseError,
  };
}

/** The attachment rows of a received message, in message order. */
export function attachmentRows(
  mail: ParsedInbound,
  owner: { readonly projectId: string; readonly messageId: string; readonly at: number },
  scanState: 'pending' | 'error',
) {
  return mail.attachments.map((attachment, position) => ({
    id: newId('att', owner.at),
    project_id: owner.projectId,
    message_id: owner.messageId,
    position,
    filename: attachment.filename,
    content_type: attachment.contentType,
    content_id: attachment.contentId,
    disposition: attachment.disposition,
    size_bytes: attachment.content.length,
    sha256: createHash('sha256').update(attachment.content).digest('hex'),
    scan_state: scanState,
    content: attachment.content,
    created_at: owner.at,
  }));
}

/**
 * The payload of `email.received`. `processing` is there for a message stored without processing
 * (`failed`, with the reason) and for one an operator had processed since (`complete`); absent, the
 * message was processed when it was received.
 */
export function receivedEventData(input: {
  readonly id: string;
  readonly threadId: string;
  readonly routeId: string | null;
  readonly mail: ParsedInbound;
  readonly at: number;
  readonly attachments: ReturnType<typeof attachmentRows>;
  readonly processing?: { readonly state: 'failed' | 'complete'; readonly error?: string };
}): Record<string, unknown> {
  const { mail, processing } = input;
  return {
    email_id: input.id,
    thread_id: input.threadId,
    route_id: input.routeId,
    from: mail.fromHeader,
    to: mail.to,
    cc: mail.cc,
    subject: mail.subject,
    message_id: mail.messageId,
    ...(mail.parseError === null ? {} : { parse_error: mail.parseError }),
    ...(processing === undefined ? {} : { processing: processing.state }),
    ...(processing?.error === undefined ? {} : { processing_error: processing.error }),
    created_at: new Date(input.at).toISOString(),
    attachments: input.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      content_type: a.content_type,
      size_bytes: a.size_bytes,
      scan_state: a.scan_state,
    })),
  };
}
