/**
 * The analytics projection: reads the event log from its cursor, moves each recipient's record
 * (transitions.ts) and keeps `analytics_daily` (counters and a latency histogram per project, key
 * mode, acceptance day and lane) in step, so a report reads a few hundred small rows whatever the
 * volume. A message's mode is not in its events: it is asked of the emails capability, once per
 * message and batch (only a record's creation needs it; the record keeps it).
 *
 * A batch runs in one synchronous transaction on the raw SQLite handle (this is the hot path of
 * analytics: prepared statements, no awaits, so nothing interleaves), with the cursor advanced in
 * the same transaction. It never runs while another transaction is open on the shared connection
 * (Kysely's async transactions); it waits and tries again.
 */
import type SQLite from 'better-sqlite3';
import type { MessageMode } from '../emails/model.js';
import { withRelaxedSync } from '../platform/db/durability.js';
import type { KeyMode } from '../platform/db/tables.js';
import { writable } from '../platform/db/write-gate.js';
import type { Logger } from '../platform/log.js';
import { type DailyChange, DailyChanges } from './daily-changes.js';
import { LatencyHistogram } from './latency-histogram.js';
import {
  type AnalyticsEvent,
  COUNTERS,
  type Counters,
  type RecipientRecord,
  recipientsOf,
  transition,
} from './transitions.js';

export const ANALYTICS_CURSOR = 'analytics';
/**
 * Time a batch may hold the event loop before it commits (a page past it finishes first). The
 * requests that arrive meanwhile wait for it: this bounds what the projection adds to their tail.
 */
const SLICE_MS = 2;
/** Events read at a time within a batch (a page costs well under a millisecond). */
const PAGE = 64;

/** What one batch did: the events it read, and whether more may be waiting (it stopped at a bound). */
export interface BatchOutcome {
  readonly read: number;
  readonly more: boolean;
}
const TYPES = [
  'email.scheduled',
  'email.sent',
  'email.cancelled',
  'email.delivery_delayed',
  'email.delivered',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.suppressed',
  'email.opened',
  'email.clicked',
];

export interface EventRow {
  id: string;
  project_id: string;
  type: string;
  message_id: string | null;
  recipient: string | null;
  data: string;
  created_at: number;
}

export type DailyRow = Counters & {
  project_id: string;
  mode: KeyMode;
  day: number;
  lane: string;
  latency: string;
};

function prepare(sqlite: SQLite.Database) {
  const columns = COUNTERS.join(', ');
  const placeholders = COUNTERS.map((name) => `@${name}`).join(', ');
  return {
    cursor: sqlite.prepare<[string], { last_event_id: string }>(
      'select last_event_id from event_cursors where consumer = ?',
    ),
    setCursor: sqlite.prepare(
      `insert into event_cursors (consumer, last_event_id, updated_at) values (?, ?, ?)
       on conflict (consumer) do update set last_event_id = excluded.last_event_id, updated_at = excluded.updated_at`,
    ),
    events: sqlite.prepare<[string, number], EventRow>(
      `select id, project_id, type, message_id, recipient, data, created_at from events
       where id > ? order by id limit ?`,
    ),
    recipient: sqlite.prepare<[string, string], RecipientRecord>(
      'select * from analytics_recipients where message_id = ? and recipient = ?',
    ),
    putRecipient: sqlite.prepare(
      `insert or replace into analytics_recipients
       (message_id, recipient, project_id, mode, day, lane, status, queued_at, delivered_at, latency_ms, opened,
        clicked, machine_opens, machine_clicks, updated_at)
       values (@message_id, @recipient, @project_id, @mode, @day, @lane, @status, @queued_at, @delivered_at,
               @latency_ms, @opened, @clicked, @machine_opens, @machine_clicks, @updated_at)`,
    ),
    daily: sqlite.prepare<[string, KeyMode, number, string], DailyRow>(
      'select * from analytics_daily where project_id = ? and mode = ? and day = ? and lane = ?',
    ),
    putDaily: sqlite.prepare(
      `insert or replace into analytics_daily (project_id, mode, day, lane, ${columns}, latency)
       values (@project_id, @mode, @day, @lane, ${placeholders}, @latency)`,
    ),
  };
}

/**
 * `messageMode` names the mode of a message's key, which a recipient's record takes when it is
 * created; a message the store does not know (none in practice) counts as live.
 */
export function createAnalyticsProjector(sqlite: SQLite.Database, messageMode: MessageMode, log: Logger) {
  let statements: ReturnType<typeof prepare> | undefined;
  const stmt = () => {
    statements ??= prepare(sqlite);
    return statements;
  };

  /**
   * Projects one batch: pages of events in one transaction until `limit` events are read or the
   * batch has run `SLICE_MS` on the event loop, then commits (the requests in flight are answered
   * between batches: a batch of 1,000 events held the loop up to 8 ms). Returns what it read and
   * whether more may be waiting, or null when the connection is busy.
   * Committed without waiting for the disk (synchronous=NORMAL): the projection is derived from
   * the event log, and after a power cut it resumes from its cursor, which rolls back with it; an
   * fsync here would stall the event loop, and every request behind it, a few times a second.
   */
  function runBatch(limit: number): BatchOutcome | null {
    // Busy also while the WAL checkpointer's thread is after the write lock (write-gate.ts).
    if (sqlite.inTransaction || !writable(sqlite)) return null;
    const s = stmt();
    const started = performance.now();
    return withRelaxedSync(sqlite, () =>
      sqlite
        .transaction((): BatchOutcome => {
          let cursor = s.cursor.get(ANALYTICS_CURSOR)?.last_event_id ?? '';
          let read = 0;
          let more = false;
          // Each page sees the records and aggregate rows the pages before it wrote (same transaction).
          while (read < limit) {
            const want = Math.min(PAGE, limit - read);
            const rows = s.events.all(cursor, want);
            const last = rows.at(-1);
            if (!last) {
              more = false;
              break;
            }
            projectPage(s, rows);
            cursor = last.id;
            read += rows.length;
            if (rows.length < want) break;
            more = true;
            if (performance.now() - started >= SLICE_MS) break;
          }
          if (read > 0) s.setCursor.run(ANALYTICS_CURSOR, cursor, Date.now());
          return { read, more };
        })
        .immediate(),
    );
  }

  function projectPage(s: ReturnType<typeof prepare>, rows: readonly EventRow[]): void {
    const { dirty, changes } = applyEvents(
      rows,
      {
        record: (messageId, recipient) => s.recipient.get(messageId, recipient),
        mode: (messageId) => messageMode(messageId) as KeyMode | undefined,
      },
      log,
    );
    for (const record of dirty) s.putRecipient.run(record);
    for (const entry of changes.values()) {
      s.putDaily.run(nextDaily(s.daily.get(entry.project_id, entry.mode, entry.day, entry.lane), entry));
    }
  }

  return { runBatch };
}

/** What a batch reads besides the events: a recipient's record, a message's mode (synchronous). */
export interface BatchLookups {
  record(messageId: string, recipient: string): RecipientRecord | undefined;
  /** Undefined for a message the store does not know (counted as live). */
  mode(messageId: string): KeyMode | undefined;
}

/** The recipients' records and the aggregate changes a page of events makes (both adapters). */
export function applyEvents(
  rows: readonly EventRow[],
  lookups: BatchLookups,
  log: Logger,
): { dirty: RecipientRecord[]; changes: DailyChanges } {
  const records = new Map<string, RecipientRecord | undefined>();
  const dirty = new Set<string>();
  const changes = new DailyChanges();
  const modes = new Map<string, KeyMode>();
  const modeOf = (messageId: string): KeyMode => {
    let mode = modes.get(messageId);
    if (!mode) {
      mode = lookups.mode(messageId) ?? 'live';
      modes.set(messageId, mode);
    }
    return mode;
  };
  for (const row of rows) {
    const data = analyticsData(row, log);
    if (data === undefined || row.message_id === null) continue;
    const event: AnalyticsEvent = {
      project_id: row.project_id,
      mode: modeOf(row.message_id),
      type: row.type,
      message_id: row.message_id,
      created_at: row.created_at,
      data,
    };
    for (const recipient of recipientsOf(row.recipient, data)) {
      const key = `${row.message_id}\u0000${recipient}`;
      const previous = records.has(key) ? records.get(key) : lookups.record(row.message_id, recipient);
      const next = transition(previous, event, recipient);
      records.set(key, next ?? previous);
      if (!next) continue;
      dirty.add(key);
      changes.move(previous, next);
    }
  }
  return { dirty: [...dirty].map((key) => records.get(key) as RecipientRecord), changes };
}

/** The event's data when analytics projects it (a type it counts, about a message), else undefined. */
export function analyticsData(row: EventRow, log: Logger): Record<string, unknown> | undefined {
  if (!row.message_id || !TYPES.includes(row.type)) return undefined;
  try {
    return JSON.parse(row.data) as Record<string, unknown>;
  } catch {
    log.warn({ event_id: row.id }, 'analytics skipped an event whose data is not JSON');
    return undefined;
  }
}

/** An aggregate row after a batch's change to it (`current`: the row before, if any). */
export function nextDaily(current: DailyRow | undefined, entry: DailyChange): DailyRow {
  const histogram = LatencyHistogram.parse(current?.latency ?? '[]');
  for (const latency of entry.removed) histogram.remove(latency);
  for (const latency of entry.added) histogram.add(latency);
  const next: Record<string, number | string> = {
    project_id: entry.project_id,
    mode: entry.mode,
    day: entry.day,
    lane: entry.lane,
    latency: histogram.serialize(),
  };
  for (const name of COUNTERS) next[name] = (current?.[name] ?? 0) + entry.counters[name];
  return next as DailyRow;
}

export type AnalyticsProjector = ReturnType<typeof createAnalyticsProjector>;
