/** Event types (DESIGN.md §4), named as Resend names them. */
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
  'email.received',
  'domain.created',
  'domain.updated',
  'domain.deleted',
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The payload every webhook receives and every event row stores (`data` as JSON). */
export interface EventPayload {
  readonly id: string;
  readonly type: EventType;
  readonly created_at: string;
  readonly data: Record<string, unknown>;
}
