/**
 * The analytics projection's PostgreSQL adapter (the SQLite one is projector.ts' prepared
 * statements): the same batch through Kysely, in one transaction with the cursor. A page of
 * events is read in commit-safe order (the event log's `rowsAfter`), the records and modes it
 * needs are read in one query each, the pure part (`applyEvents`) runs as on SQLite, and the
 * changed records and aggregate rows are written back. A transaction lock (`analytics`) keeps two
 * nodes, or a report's catch-up beside the engine, from projecting the same page twice.
 */
import { sql } from 'kysely';
import type { MessageModes } from '../emails/model.js';
import { unreadBeyondCursor } from '../events/log-pg.js';
import type { Db } from '../platform/db/database.js';
import type { KeyMode } from '../platform/db/tables.js';
import { lockInTransaction } from '../platform/db/transaction-lock.js';
import type { Logger } from '../platform/log.js';
import {
  ANALYTICS_CURSOR,
  analyticsData,
  applyEvents,
  type BatchOutcome,
  type DailyRow,
  type EventRow,
  nextDaily,
} from './projector.js';
import { type RecipientRecord, recipientsOf } from './transitions.js';

export interface PostgresProjectorDeps {
  readonly db: Db;
  /** The event log's reader in commit-safe order (events/service.ts `rowsAfter`). */
  readonly rowsAfter: (afterId: string, limit: number, executor: Db) => Promise<EventRow[]>;
  readonly messageModes: MessageModes;
  readonly log: Logger;
}

const key = (...parts: readonly (string | number)[]) => parts.join('\u0000');

export function createPostgresAnalyticsProjector(deps: PostgresProjectorDeps) {
  const { db, log } = deps;

  async function batch(trx: Db, limit: number): Promise<number> {
    await lockInTransaction(trx, 'analytics-projection');
    const cursor = await trx
      .selectFrom('event_cursors')
      .select('last_event_id')
      .where('consumer', '=', ANALYTICS_CURSOR)
      .executeTakeFirst();
    const rows = await deps.rowsAfter(cursor?.last_event_id ?? '', limit, trx);
    const last = rows.at(-1);
    if (!last) return 0;
    // What the page will ask for, read at once: its messages' modes and recipients' records.
    const pairs: { message_id: string; recipient: string }[] = [];
    const messages = new Set<string>();
    for (const row of rows) {
      const data = analyticsData(row, log);
      if (data === undefined || row.message_id === null) continue;
      messages.add(row.message_id);
      for (const recipient of recipientsOf(row.recipient, data))
        pairs.push({ message_id: row.message_id, recipient });
    }
    const modes = await deps.messageModes([...messages]);
    const records = await recordsOf(trx, pairs);
    const { dirty, changes } = applyEvents(
      rows,
      {
        record: (messageId, recipient) => records.get(key(messageId, recipient)),
        mode: (messageId) => modes.get(messageId),
      },
      log,
    );
    for (let i = 0; i < dirty.length; i += 500) await putRecipients(trx, dirty.slice(i, i + 500));
    const entries = [...changes.values()];
    const current = await dailyRows(trx, entries);
    const next = entries.map((entry) =>
      nextDaily(current.get(key(entry.project_id, entry.mode, entry.day, entry.lane)), entry),
    );
    for (let i = 0; i < next.length; i += 500) await putDaily(trx, next.slice(i, i + 500));
    const now = Date.now();
    await trx
      .insertInto('event_cursors')
      .values({ consumer: ANALYTICS_CURSOR, last_event_id: last.id, updated_at: now })
      .onConflict((oc) => oc.column('consumer').doUpdateSet({ last_event_id: last.id, updated_at: now }))
      .execute();
    return rows.length;
  }

  return {
    /** Projects one batch; returns the number of events read (more may wait when it read `limit`). */
    async runBatch(limit: number): Promise<BatchOutcome> {
      const read = await db.transaction().execute((trx) => batch(trx, limit));
      return { read, more: read === limit };
    },
    /** Whether committed events lie beyond the cursor (events/log-pg.ts). */
    waiting(): Promise<boolean> {
      return unreadBeyondCursor(db, ANALYTICS_CURSOR);
    },
  };
}

/** The records of these (message, recipient) pairs that exist, by key. */
async function recordsOf(
  trx: Db,
  pairs: readonly { message_id: string; recipient: string }[],
): Promise<Map<string, RecipientRecord>> {
  const found = new Map<string, RecipientRecord>();
  for (let i = 0; i < pairs.length; i += 1000) {
    const slice = pairs.slice(i, i + 1000);
    const { rows } = await sql<RecipientRecord>`
      select r.* from analytics_recipients r
       join unnest(${slice.map((p) => p.message_id)}::text[], ${slice.map((p) => p.recipient)}::text[])
         as w(message_id, recipient) using (message_id, recipient)`.execute(trx);
    for (const row of rows) found.set(key(row.message_id, row.recipient), row);
  }
  return found;
}

async function putRecipients(trx: Db, records: readonly RecipientRecord[]): Promise<void> {
  if (records.length === 0) return;
  await trx
    .insertInto('analytics_recipients')
    .values([...records])
    .onConflict((oc) =>
      oc.columns(['message_id', 'recipient']).doUpdateSet((eb) => ({
        project_id: eb.ref('excluded.project_id'),
        mode: eb.ref('excluded.mode'),
        day: eb.ref('excluded.day'),
        lane: eb.ref('excluded.lane'),
        status: eb.ref('excluded.status'),
        queued_at: eb.ref('excluded.queued_at'),
        delivered_at: eb.ref('excluded.delivered_at'),
        latency_ms: eb.ref('excluded.latency_ms'),
        opened: eb.ref('excluded.opened'),
        clicked: eb.ref('excluded.clicked'),
        machine_opens: eb.ref('excluded.machine_opens'),
        machine_clicks: eb.ref('excluded.machine_clicks'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

type DailyKey = { project_id: string; mode: KeyMode; day: number; lane: string };

/** The aggregate rows the changes touch, by key. */
async function dailyRows(trx: Db, entries: readonly DailyKey[]): Promise<Map<string, DailyRow>> {
  const found = new Map<string, DailyRow>();
  for (let i = 0; i < entries.length; i += 1000) {
    const slice = entries.slice(i, i + 1000);
    const { rows } = await sql<DailyRow>`
      select d.* from analytics_daily d
       join unnest(${slice.map((e) => e.project_id)}::text[], ${slice.map((e) => e.mode)}::text[],
                   ${slice.map((e) => e.day)}::bigint[], ${slice.map((e) => e.lane)}::text[])
         as w(project_id, mode, day, lane) using (project_id, mode, day, lane)`.execute(trx);
    for (const row of rows) found.set(key(row.project_id, row.mode, row.day, row.lane), row);
  }
  return found;
}

async function putDaily(trx: Db, rows: readonly DailyRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('analytics_daily')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['project_id', 'mode', 'day', 'lane']).doUpdateSet((eb) => ({
        accepted: eb.ref('excluded.accepted'),
        queued: eb.ref('excluded.queued'),
        deferred: eb.ref('excluded.deferred'),
        delivered: eb.ref('excluded.delivered'),
        bounced: eb.ref('excluded.bounced'),
        complained: eb.ref('excluded.complained'),
        failed: eb.ref('excluded.failed'),
        suppressed: eb.ref('excluded.suppressed'),
        unique_opens: eb.ref('excluded.unique_opens'),
        unique_clicks: eb.ref('excluded.unique_clicks'),
        machine_opens: eb.ref('excluded.machine_opens'),
        machine_clicks: eb.ref('excluded.machine_clicks'),
        latency: eb.ref('excluded.latency'),
      })),
    )
    .execute();
}
