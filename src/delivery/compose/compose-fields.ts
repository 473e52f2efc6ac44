/**
 * The composer's fields of a stored message (everything but the bodies, which a render worker
 * reads itself): what the prerender stage and a delivery both build, so a message rendered at
 * admission and one rendered at delivery are the same message.
 */
import type { ComposeFields } from './compose.js';
import { dueTime } from '../queue/due-time.js';
import type { MessageRow, RecipientRow } from '../queue/store-rows.js';

/** The To and Cc headers: every recipient of the message as submitted, Bcc never. */
export function headerRecipients(recipients: readonly Pick<RecipientRow, 'kind' | 'display'>[]) {
  return {
    to: recipients.filter((r) => r.kind === 'to').map((r) => r.display),
    cc: recipients.filter((r) => r.kind === 'cc').map((r) => r.display),
  };
}

export function composeFields(
  message: MessageRow,
  header: { readonly to: readonly string[]; readonly cc: readonly string[] },
): Omit<ComposeFields, 'html' | 'text'> {
  return {
    from: message.from_header,
    to: header.to,
    cc: header.cc,
    replyTo: message.reply_to === null ? [] : (JSON.parse(message.reply_to) as string[]),
    subject: message.subject,
    headers: JSON.parse(message.headers) as Record<string, string>,
    messageId: `<${message.id}@${message.from_domain}>`,
    // RFC 5322 §3.6.1: the date the message was ready to enter the mail system (its send_at if scheduled).
    date: dueTime(message),
  };
}
