/** Event types (DESIGN.md §4), named as Resend names them: what webhook endpoints may receive. */
export const EVENT_TYPES = [
  'email.sent',
  'email.scheduled',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.suppressed',
  /** An agent send (an OAuth client's) that a member rejected, or that expired undecided. */
  'email.rejected',
  'email.received',
  'domain.created',
  'domain.updated',
  'domain.deleted',
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'broadcast.sent',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Event types appended for the log's own readers (analytics) and never fanned out to webhook
 * endpoints, not even to one subscribed to `*` (docs/decisions/analytics.md): `email.cancelled`, a
 * scheduled send cancelled before its time.
 */
export const INTERNAL_EVENT_TYPES = ['email.cancelled'] as const;

export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];

/** Every type the event log holds. */
export type LoggedEventType = EventType | InternalEventType;

const internal: ReadonlySet<string> = new Set(INTERNAL_EVENT_TYPES);

/** @example isInternalEvent('email.cancelled') // true: no webhook endpoint receives it */
export function isInternalEvent(type: string): boolean {
  return internal.has(type);
}

/** The payload every webhook receives and every event row stores (`data` as JSON). */
export interface EventPayload {
  readonly id: string;
  readonly type: LoggedEventType;
  readonly created_at: string;
  readonly data: Record<string, unknown>;
}
