/**
 * Which mode an event belongs to, the one rule the fan-out and replay share: an endpoint receives
 * the events of its own mode's messages only, and events about no message (`domain.*`,
 * `contact.*`, `email.received`) go to endpoints of both modes. A message the emails capability
 * does not know (none in practice: messages outlive their events) counts as live, as analytics
 * counts it. A replay reads the message from the stored body, which is the event's payload byte
 * for byte: every `email.*` event but `email.received` (mail received, about no sent message)
 * names its message as `data.email_id`, the event's `message_id`; this also covers an event
 * retention already removed from the log, as migration 0017 does.
 */
import type { MessageMode } from '../emails/model.js';
import type { KeyMode } from '../platform/db/tables.js';

/** The mode of a message; one the emails capability does not know is live. */
export function modeOfMessage(messageMode: MessageMode, messageId: string): KeyMode {
  return messageMode(messageId) ?? 'live';
}

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

/** The mode of the message a stored body is about, as the fan-out decides it; undefined for none. */
export function bodyMode(messageMode: MessageMode, eventType: string, body: string): KeyMode | undefined {
  const messageId = messageOfBody(eventType, body);
  return messageId === undefined ? undefined : modeOfMessage(messageMode, messageId);
}
