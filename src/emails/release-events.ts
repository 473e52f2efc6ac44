/**
 * The events of a scheduled send's release (DESIGN.md §4: `data` carries `email_id`, `from`, `to`,
 * `subject`, `tags` and the event's own object). `email.sent` is one per message and lists the
 * recipients released; `email.suppressed` and `email.failed` are one per recipient, named in the
 * event's `recipient` and in its own object, shaped like the delivery engine's outcome events
 * (delivery/outcome-events.ts), so webhooks and analytics read them the same way.
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
}

function tagsOf(message: ReleasedMessage): Record<string, string> {
  return JSON.parse(message.tags) as Record<string, string>;
}

export function sentEvent(
  message: ReleasedMessage,
  released: readonly ScheduledRecipient[],
  now: number,
): NewEvent {
  const emails = (kind: ScheduledRecipient['kind']) =>
    released.filter((r) => r.kind === kind).map((r) => r.email);
  return {
    projectId: message.project_id,
    type: 'email.sent',
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
      created_at: new Date(now).toISOString(),
      scheduled_at: new Date(message.send_at ?? now).toISOString(),
    },
  };
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
