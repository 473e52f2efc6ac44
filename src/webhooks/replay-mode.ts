/**
 * Which message a stored webhook body is about, for replay: an endpoint receives the events of its
 * own mode's messages only (fan-out.ts), and a replay must not send what the fan-out would not.
 * The body is the event's payload byte for byte; every `email.*` event but `email.received` (mail
 * received, about no sent message) names its message as `data.email_id`, the event's `message_id`.
 * Reading it from the body also covers an event retention already removed from the log, as
 * migration 0017 does.
 */
import type { MessageMode } from '../emails/model.js';
import type { KeyMode } from '../platform/db/tables.js';

/** The message `body` (an event of type `eventType`) is about; undefined when it is about none. */
export function messageOfBody(eventType: string, body: string): string | undefined {
  if (!eventType.startsWith('email.') || eventType === 'email.received') return undefined;
  try {
    const emailId = (JSON.parse(body) as { data?: { email_id?: unknown } }).data?.email_id;
    return typeof emailId === 'string' ? emailId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The mode of the message a stored body is about, as the fan-out decides it (a message the emails
 * capability does not know counts as live); undefined for an event about no message.
 */
export function bodyMode(messageMode: MessageMode, eventType: string, body: string): KeyMode | undefined {
  const messageId = messageOfBody(eventType, body);
  return messageId === undefined ? undefined : (messageMode(messageId) ?? 'live');
}
