/**
 * The events of a scheduled send's release or cancel (DESIGN.md §4: `data` carries `email_id`,
 * `from`, `to`, `subject`, `tags` and the event's own object). `email.sent` is one per message and
 * lists the recipients released (the internal `email.cancelled` lists them all); `email.suppressed`
 * and `email.failed` are one per recipient, named in the event's `recipient` and in its own
 * object, shaped like the delivery engine's outcome events (delivery/outcomes/outcome-events.ts), so
 * webhooks and analytics read them the same way.
 */
import type { NewEvent } from '../events/service.js';
import type { ScheduledRecipient } from './store.js';

/** The parts of a due message its events carry. */
export interface ReleasedMessage {
  readonly id: string;
  readonly project_id: string;
  readonly from_header: string;
  readonly subject: string;
  readonly tags: string;
  readonly send_at: number | null;
  /** When the message was accepted (what `GET /v1/emails/{id}` shows as `created_at`). */
  readonly created_at: number;
}

function tagsOf(message: ReleasedMessage): Record<string, string> {
  return JSON.parse(message.tags) as Record<string, string>;
}

/**
 * The event of one message listing `recipients` in `to`, `cc` and `bcc`, as `email.sent` does,
 * with `fields` after the common ones (also the held sends' events, held.ts).
 */
export function messageEvent(
  type: NewEvent['type'],
  message: ReleasedMessage,
  recipients: readonly ScheduledRecipient[],
  now: number,
  fields: Record<string, unknown>,
): NewEvent {
  const emails = (kind: ScheduledRecipient['kind']) =>
    recipients.filter((r) => r.kind === kind).map((r) => r.email);
  return {
    projectId: message.project_id,
    type,
    messageId: message.id,
    at: now,
    data: {
      email_id: message.id,
      from: message.from_header,
      to: emails('to'),
      cc: emails('cc'),
      bcc: emails('bcc'),
      subject: message.subject,
      tags: tagsOf(message),
      ...fields,
    },
  };
}

/** A per-message event of a release or cancel: `extra`, then when the message was due. */
function perMessage(
  type: 'email.sent' | 'email.cancelled',
  message: ReleasedMessage,
  recipients: readonly ScheduledRecipient[],
  now: number,
  extra: Record<string, unknown>,
): NewEvent {
  return messageEvent(type, message, recipients, now, {
    ...extra,
    scheduled_at: new Date(message.send_at ?? now).toISOString(),
  });
}

export function sentEvent(
  message: ReleasedMessage,
  released: readonly ScheduledRecipient[],
  now: number,
): NewEvent {
  return perMessage('email.sent', message, released, now, {
    created_at: new Date(message.created_at).toISOString(),
  });
}

/**
 * A scheduled send cancelled before its time, listing every recipient: an internal event (never
 * sent to webhooks) from which analytics takes the recipients out of its counts.
 */
export function cancelledEvent(
  message: ReleasedMessage,
  recipients: readonly ScheduledRecipient[],
  now: number,
): NewEvent {
  return perMessage('email.cancelled', message, recipients, now, {
    cancelled_at: new Date(now).toISOString(),
  });
}

function perRecipient(
  type: 'email.suppressed' | 'email.failed',
  message: ReleasedMessage,
  all: readonly ScheduledRecipient[],
  recipient: ScheduledRecipient,
  own: Record<string, unknown>,
  now: number,
): NewEvent {
  return {
    projectId: message.project_id,
    type,
    messageId: message.id,
    recipient: recipient.email,
    at: now,
    data: {
      email_id: message.id,
      from: message.from_header,
      // The To header, as the delivery engine's per-recipient events carry it.
      to: all.filter((r) => r.kind === 'to').map((r) => r.display),
      subject: message.subject,
      tags: tagsOf(message),
      ...own,
    },
  };
}

/** A recipient held back at release because it was suppressed after acceptance. */
export function suppressedEvent(
  message: ReleasedMessage,
  all: readonly ScheduledRecipient[],
  recipient: ScheduledRecipient,
  reason: string,
  now: number,
): NewEvent {
  return perRecipient(
    'email.suppressed',
    message,
    all,
    recipient,
    { suppression: { recipient: recipient.email, reason } },
    now,
  );
}

/** A recipient of a send that may no longer go out (project suspended, sender unverified). */
export function failedEvent(
  message: ReleasedMessage,
  all: readonly ScheduledRecipient[],
  recipient: ScheduledRecipient,
  reason: string,
  now: number,
): NewEvent {
  return perRecipient(
    'email.failed',
    message,
    all,
    recipient,
    { failure: { recipient: recipient.email, reason } },
    now,
  );
}
