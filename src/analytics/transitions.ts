/**
 * How each event moves one recipient's analytics record (its current outcome), and what a record
 * counts for in the daily aggregates. Pure functions: the projection (projector.ts) reads the
 * previous record, asks here for the next one, and moves the difference of the two
 * contributions between aggregate rows. Replaying an event changes nothing, so the projection
 * is idempotent, and events that arrive without their predecessors still land somewhere sensible.
 *
 * A recipient counts on the UTC day its message was accepted (the cohort), under the mode of the
 * key that sent it (live and test traffic are reported apart), in its provider lane
 * ('' until the delivery engine names one: `lane` in `data` or in the event's own object, e.g.
 * `data.delivery.lane`; `latency_ms` likewise). Statuses: scheduled and queued count as `queued`;
 * complained also counts as delivered (a complaint means the mail arrived); a scheduled send
 * cancelled before its time (the internal `email.cancelled`) counts for nothing, not even `accepted`.
 */
import type { KeyMode } from '../platform/db/tables.js';
import { idTime } from '../platform/ids.js';
import { dayNumber } from './days.js';

export interface RecipientRecord {
  readonly message_id: string;
  readonly recipient: string;
  readonly project_id: string;
  /** The mode of the key the message was sent with: test traffic is reported apart. */
  readonly mode: KeyMode;
  readonly day: number;
  readonly lane: string;
  readonly status: string;
  readonly queued_at: number | null;
  readonly delivered_at: number | null;
  readonly latency_ms: number | null;
  readonly opened: number;
  readonly clicked: number;
  readonly updated_at: number;
}

export interface AnalyticsEvent {
  readonly project_id: string;
  /** The mode of the message's key; what a record first seen through this event takes. */
  readonly mode: KeyMode;
  readonly type: string;
  readonly message_id: string;
  readonly created_at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

export const COUNTERS = [
  'accepted',
  'queued',
  'deferred',
  'delivered',
  'bounced',
  'complained',
  'failed',
  'suppressed',
  'unique_opens',
  'unique_clicks',
] as const;

export type Counter = (typeof COUNTERS)[number];
export type Counters = Record<Counter, number>;

export const zeroCounters = (): Counters => Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Counters;

const PENDING = new Set(['scheduled', 'queued', 'deferred']);

/** What one record adds to its day and lane; a cancelled scheduled send adds nothing at all. */
export function contribution(record: RecipientRecord): Counters {
  const counters = zeroCounters();
  if (record.status === 'cancelled') return counters;
  counters.accepted = 1;
  switch (record.status) {
    case 'scheduled':
    case 'queued':
      counters.queued = 1;
      break;
    case 'complained':
      counters.delivered = 1;
      counters.complained = 1;
      break;
    case 'deferred':
    case 'delivered':
    case 'bounced':
    case 'failed':
    case 'suppressed':
      counters[record.status] = 1;
      break;
  }
  counters.unique_opens = record.opened;
  counters.unique_clicks = record.clicked;
  return counters;
}

/**
 * Whether the record's latency is in its row's histogram: while it counts as delivered (a DSN
 * bounce after the delivery takes it out again, a complaint keeps it).
 */
export function countsLatency(record: RecipientRecord): record is RecipientRecord & { latency_ms: number } {
  return (
    (record.status === 'delivered' || record.status === 'complained') &&
    record.delivered_at !== null &&
    record.latency_ms !== null
  );
}

/** Normalizes an address for matching: the part in angle brackets if any, lower-cased. */
export function recipientKey(address: string): string {
  const angle = /<([^<>]+)>\s*$/.exec(address);
  return (angle ? (angle[1] as string) : address).trim().toLowerCase();
}

function addressesIn(value: unknown): string[] {
  if (!Array.isArray(value)) return typeof value === 'string' ? [value] : [];
  return value.flatMap((item) => {
    if (typeof item === 'string') return [item];
    if (item && typeof item === 'object' && typeof (item as { email?: unknown }).email === 'string') {
      return [(item as { email: string }).email];
    }
    return [];
  });
}

/**
 * The recipients an event is about: its `recipient` column, or for a per-message event
 * (email.sent, email.scheduled) every address of `data.to`, `data.cc` and `data.bcc`.
 */
export function recipientsOf(recipient: string | null, data: Readonly<Record<string, unknown>>): string[] {
  if (recipient) return [recipientKey(recipient)];
  const all = [...addressesIn(data.to), ...addressesIn(data.cc), ...addressesIn(data.bcc)].map(recipientKey);
  return [...new Set(all.filter((address) => address.length > 0))];
}

const finiteNonNegative = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/** The event's own object (`delivery`, `delay`, `bounce`, `failure`), where outcome details live. */
const OWN_OBJECTS = ['delivery', 'delay', 'bounce', 'failure'] as const;

/** A field of `data` itself or of its own object: `data.lane` or `data.delivery.lane`. */
function field(data: Readonly<Record<string, unknown>>, name: string): unknown {
  if (data[name] !== undefined) return data[name];
  for (const key of OWN_OBJECTS) {
    const own = data[key];
    if (own && typeof own === 'object' && (own as Record<string, unknown>)[name] !== undefined) {
      return (own as Record<string, unknown>)[name];
    }
  }
  return undefined;
}

function fresh(
  event: AnalyticsEvent,
  recipient: string,
  status: string,
  acceptedAt: number,
): RecipientRecord {
  return {
    message_id: event.message_id,
    recipient,
    project_id: event.project_id,
    mode: event.mode,
    day: dayNumber(acceptedAt),
    lane: '',
    status,
    queued_at: null,
    delivered_at: null,
    latency_ms: null,
    opened: 0,
    clicked: 0,
    updated_at: event.created_at,
  };
}

/** The record after `event`, or undefined when the event changes nothing. */
export function transition(
  previous: RecipientRecord | undefined,
  event: AnalyticsEvent,
  recipient: string,
): RecipientRecord | undefined {
  const at = event.created_at;
  // A record first seen through a later event counts on the day its message was created.
  const createdAt = idTime(event.message_id) ?? at;
  const reported = field(event.data, 'lane');
  const lane = typeof reported === 'string' && reported !== '' ? reported : undefined;
  const base = (status: string): RecipientRecord => ({
    ...(previous ?? { ...fresh(event, recipient, status, createdAt), queued_at: createdAt }),
    ...(lane ? { lane } : {}),
    updated_at: at,
  });
  const pending = previous === undefined || PENDING.has(previous.status);
  // A cancelled send was never sent: nothing can happen to its recipients any more.
  if (previous?.status === 'cancelled') return undefined;

  switch (event.type) {
    case 'email.scheduled': {
      if (previous) return undefined;
      const sendAt =
        typeof event.data.scheduled_at === 'string' ? Date.parse(event.data.scheduled_at) : Number.NaN;
      return { ...fresh(event, recipient, 'scheduled', at), queued_at: Number.isNaN(sendAt) ? null : sendAt };
    }
    case 'email.cancelled':
      // Internal: a scheduled send cancelled before its time (emails/service.ts).
      if (previous?.status !== 'scheduled') return undefined;
      return { ...previous, status: 'cancelled', updated_at: at };
    case 'email.sent':
      if (!previous) return { ...fresh(event, recipient, 'queued', at), queued_at: at };
      if (previous.status !== 'scheduled') return undefined;
      return { ...previous, status: 'queued', queued_at: at, updated_at: at };
    case 'email.delivery_delayed':
      if (!pending) return undefined;
      return { ...base('deferred'), status: 'deferred' };
    case 'email.delivered': {
      if (!pending) return undefined;
      const next = base('delivered');
      const latency =
        finiteNonNegative(field(event.data, 'latency_ms')) ??
        (next.queued_at !== null ? Math.max(0, at - next.queued_at) : null);
      return { ...next, status: 'delivered', delivered_at: at, latency_ms: latency };
    }
    case 'email.bounced':
      if (previous?.status === 'bounced') return undefined;
      return { ...base('bounced'), status: 'bounced' };
    case 'email.complained':
      if (previous?.status === 'complained') return undefined;
      return { ...base('complained'), status: 'complained' };
    case 'email.failed':
      if (!pending) return undefined;
      return { ...base('failed'), status: 'failed' };
    case 'email.suppressed':
      // A refusal at send time was never accepted; only a queued recipient can end up suppressed.
      if (!previous || !PENDING.has(previous.status)) return undefined;
      return { ...previous, status: 'suppressed', updated_at: at };
    case 'email.opened':
      if (!previous || previous.opened === 1 || event.data.machine_open === true) return undefined;
      return { ...previous, opened: 1, updated_at: at };
    case 'email.clicked':
      if (!previous || previous.clicked === 1) return undefined;
      return { ...previous, clicked: 1, updated_at: at };
    default:
      return undefined;
  }
}
