/**
 * How each event moves one recipient's analytics record (its current outcome), and what a record
 * counts for in the daily aggregates. Pure functions: the projection (projector.ts) reads the
 * previous record, asks here for the next one, and moves the difference of the two
 * contributions between aggregate rows. Replaying an event changes nothing, so the projection
 * is idempotent. Only a message's acceptance creates records: an event about a recipient without
 * one (retention forgot it, its outcome long counted) changes nothing.
 *
 * A recipient counts on the UTC day its message was accepted (the cohort), under the mode of the
 * key that sent it (live and test traffic are reported apart), in its provider lane
 * ('' until the delivery engine names one: `lane` in `data` or in the event's own object, e.g.
 * `data.delivery.lane`; `latency_ms` likewise). Statuses: scheduled and queued count as `queued`;
 * complained also counts as delivered (a complaint means the mail arrived); a scheduled send
 * cancelled before its time (the internal `email.cancelled`) counts for nothing, not even `accepted`.
 */
import type { KeyMode } from '../platform/db/tables.js';
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
  /** Opens and clicks made by machines (events carrying `machine: true`), left out of the two above. */
  readonly machine_opens: number;
  readonly machine_clicks: number;
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
  'machine_opens',
  'machine_clicks',
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
  counters.machine_opens = record.machine_opens;
  counters.machine_clicks = record.machine_clicks;
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

/** A record created by its message's acceptance: counted on the day of `event`. */
function fresh(
  event: AnalyticsEvent,
  recipient: string,
  status: string,
  queuedAt: number | null,
): RecipientRecord {
  return {
    message_id: event.message_id,
    recipient,
    project_id: event.project_id,
    mode: event.mode,
    day: dayNumber(event.created_at),
    lane: '',
    status,
    queued_at: queuedAt,
    delivered_at: null,
    latency_ms: null,
    opened: 0,
    clicked: 0,
    machine_opens: 0,
    machine_clicks: 0,
    updated_at: event.created_at,
  };
}

/** The record after `event`, or undefined when the event changes nothing. */
export function transition(
  previous: RecipientRecord | undefined,
  event: AnalyticsEvent,
  recipient: string,
): RecipientRecord | undefined {
  if (!previous) return created(event, recipient);
  // A cancelled send was never sent: nothing can happen to its recipients any more.
  if (previous.status === 'cancelled') return undefined;
  return moved(previous, event);
}

/**
 * Only a message's acceptance (`email.scheduled`, `email.sent`) creates a record. Any other event
 * without one is about a recipient whose record retention forgot, which it does only once the
 * outcome is final and already counted in the aggregates (a complaint or a DSN weeks later): its
 * previous outcome is unknown, so nothing can be moved, and it is not counted a second time.
 */
function created(event: AnalyticsEvent, recipient: string): RecipientRecord | undefined {
  const at = event.created_at;
  switch (event.type) {
    case 'email.scheduled': {
      const sendAt =
        typeof event.data.scheduled_at === 'string' ? Date.parse(event.data.scheduled_at) : Number.NaN;
      return fresh(event, recipient, 'scheduled', Number.isNaN(sendAt) ? null : sendAt);
    }
    case 'email.sent':
      return fresh(event, recipient, 'queued', at);
    default:
      return undefined;
  }
}

/** The next state of a known record. */
function moved(previous: RecipientRecord, event: AnalyticsEvent): RecipientRecord | undefined {
  const at = event.created_at;
  const reported = field(event.data, 'lane');
  const lane = typeof reported === 'string' && reported !== '' ? reported : undefined;
  const base: RecipientRecord = { ...previous, ...(lane ? { lane } : {}), updated_at: at };
  const pending = PENDING.has(previous.status);

  switch (event.type) {
    case 'email.cancelled':
      // Internal: a scheduled send cancelled before its time (emails/service.ts).
      if (previous.status !== 'scheduled') return undefined;
      return { ...previous, status: 'cancelled', updated_at: at };
    case 'email.sent':
      if (previous.status !== 'scheduled') return undefined;
      return { ...previous, status: 'queued', queued_at: at, updated_at: at };
    case 'email.delivery_delayed':
      if (!pending) return undefined;
      return { ...base, status: 'deferred' };
    case 'email.delivered': {
      if (!pending) return undefined;
      const latency =
        finiteNonNegative(field(event.data, 'latency_ms')) ??
        (base.queued_at !== null ? Math.max(0, at - base.queued_at) : null);
      return { ...base, status: 'delivered', delivered_at: at, latency_ms: latency };
    }
    case 'email.bounced':
      if (previous.status === 'bounced') return undefined;
      return { ...base, status: 'bounced' };
    case 'email.complained':
      if (previous.status === 'complained') return undefined;
      return { ...base, status: 'complained' };
    case 'email.failed':
      if (!pending) return undefined;
      return { ...base, status: 'failed' };
    case 'email.suppressed':
      // A refusal at send time was never accepted; only a queued recipient can end up suppressed.
      if (!pending) return undefined;
      return { ...previous, status: 'suppressed', updated_at: at };
    // Only people count as opens and clicks; a machine's (tracking/classify/rules.ts) is counted apart.
    case 'email.opened':
      if (event.data.machine === true)
        return { ...previous, machine_opens: previous.machine_opens + 1, updated_at: at };
      if (previous.opened === 1) return undefined;
      return { ...previous, opened: 1, updated_at: at };
    case 'email.clicked':
      if (event.data.machine === true)
        return { ...previous, machine_clicks: previous.machine_clicks + 1, updated_at: at };
      if (previous.clicked === 1) return undefined;
      return { ...previous, clicked: 1, updated_at: at };
    default:
      // email.scheduled again (a replay), or a type analytics does not count.
      return undefined;
  }
}
