/**
 * The event log's PostgreSQL reads and writes (the SQLite ones stay in service.ts).
 *
 * Several nodes append at once, and a transaction that took its sequence number first may commit
 * last: a reader that kept "the highest ID I read" would skip it for ever. On PostgreSQL every
 * event carries the id of the transaction that inserted it (`tx`, pg_current_xact_id()) and a
 * sequence number (`seq`). A reader only reads events whose transaction is older than the oldest
 * one still running (`pg_snapshot_xmin`), in (tx, seq) order: every transaction below that line
 * has ended, and every later one gets a larger id, so nothing can appear behind the reader. The
 * cursor stays an event ID; the reader finds its (tx, seq) again from the row.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { EventsTable } from '../platform/db/tables.js';

/** Whole events after the event `afterId` in commit-safe order, at most `limit`. */
export async function rowsAfterOnPostgres(db: Db, afterId: string, limit: number): Promise<EventsTable[]> {
  const { rows } = await sql<EventsTable>`
    select e.id, e.project_id, e.type, e.message_id, e.recipient, e.data, e.created_at
      from events e
     where ${await readableAfter(db, afterId)}
     order by e.tx, e.seq
     limit ${limit}`.execute(db);
  return rows;
}

/**
 * The condition on `events e` of the events a reader at the event `afterId` reads next: committed
 * below the oldest running transaction, and after the cursor's (tx, seq). Read in `e.tx, e.seq`
 * order (rowsAfterOnPostgres, window.ts).
 */
export async function readableAfter(db: Db, afterId: string): Promise<RawBuilder<unknown>> {
  const cursor =
    afterId === ''
      ? undefined
      : (
          await sql<{
            tx: string;
            seq: number;
          }>`select tx::text as tx, seq from events where id = ${afterId}`.execute(db)
        ).rows[0];
  // A cursor whose event retention removed: everything after it by ID (only events older than
  // the retention window could sort behind it, and those are gone too).
  const after = cursor
    ? sql`(e.tx, e.seq) > (${cursor.tx}::xid8, ${cursor.seq}::bigint)`
    : sql`e.id > ${afterId}`;
  return sql`e.tx < pg_snapshot_xmin(pg_current_snapshot()) and ${after}`;
}

/** The newest event ID stored (or a cursor, when retention removed every event read). */
export async function newestIdOnPostgres(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ id: string | null }>`
    select max(id) as id from (select max(id) as id from events
      union all select max(last_event_id) from event_cursors) s`.execute(db);
  return rows[0]?.id ?? undefined;
}

/**
 * Whether committed events lie beyond the cursor of `consumer`: held back by an older transaction
 * still running, or committed since its last read. A consumer whose caller must see everything
 * committed before it asked (a report's catch-up) reads on, for a while, while this holds. Asked
 * outside the reader's snapshot, so an event that became readable in between is found here.
 * Two index seeks whatever the log's size: the newest event by (tx, seq) against the cursor's
 * (a join of the cursor to every later event scanned the whole table, 34 ms at 200,000 events).
 */
export async function unreadBeyondCursor(db: Db, consumer: string): Promise<boolean> {
  const { rows } = await sql<{ unread: boolean }>`
    with c as (select last_event_id as id from event_cursors where consumer = ${consumer}),
         p as (select e.tx, e.seq from events e join c on e.id = c.id),
         newest as (select e.tx, e.seq from events e order by e.tx desc, e.seq desc limit 1)
    select case
      when not exists (select 1 from c) then exists (select 1 from events)
      when exists (select 1 from p) then exists (select 1 from newest n, p where (n.tx, n.seq) > (p.tx, p.seq))
      else (select max(id) from events) > (select id from c)
    end as unread`.execute(db);
  return rows[0]?.unread === true;
}
