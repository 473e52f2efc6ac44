/**
 * A window of the event log read for a few types: the next `limit` events after a cursor, in the
 * order `rowsAfter` reads them, of which only those of the given types are returned whole. A
 * reader that projects a few types (the reputation center, the webhook fan-out when no endpoint
 * takes every type) moves its cursor to the window's last event without materialising the rest:
 * under tracking traffic most of the log is opens and clicks, which such readers only skip.
 *
 * On SQLite the window's bound is read through the primary key's index alone, then the events of
 * the types within it. On PostgreSQL the window is the commit-safe order of log-pg.ts.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { EventsTable } from '../platform/db/tables.js';
import { readableAfter } from './log-pg.js';

export interface EventWindow {
  /** The window's events of the asked types, oldest first. */
  readonly rows: EventsTable[];
  /** The window's last event (the reader's next cursor); undefined when the log has nothing after the cursor. */
  readonly last: string | undefined;
  /** Events in the window, of every type (`limit` when more may follow). */
  readonly read: number;
}

export async function windowOnSqlite(
  db: Db,
  afterId: string,
  limit: number,
  types: readonly string[],
): Promise<EventWindow> {
  const bound = await db
    .selectFrom((eb) =>
      eb.selectFrom('events').select('id').where('id', '>', afterId).orderBy('id').limit(limit).as('w'),
    )
    .select((eb) => [eb.fn.countAll<number>().as('read'), eb.fn.max('w.id').as('last')])
    .executeTakeFirstOrThrow();
  const read = Number(bound.read);
  const last = bound.last ?? undefined;
  if (read === 0 || last === undefined) return { rows: [], last: undefined, read: 0 };
  if (types.length === 0) return { rows: [], last, read };
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('id', '>', afterId)
    .where('id', '<=', last)
    .where('type', 'in', [...types])
    .orderBy('id')
    .execute();
  return { rows, last, read };
}

export async function windowOnPostgres(
  db: Db,
  afterId: string,
  limit: number,
  types: readonly string[],
): Promise<EventWindow> {
  // One statement, so the window and its rows come from one snapshot: a summary row (the window's
  // size and last event) joined to the window's events of the types, if any.
  const { rows } = await sql<EventsTable & { window_read: number; window_last: string | null }>`
    with w as (
      select e.id, e.tx, e.seq, e.type from events e
       where ${await readableAfter(db, afterId)}
       order by e.tx, e.seq
       limit ${limit}),
    s as (
      select (select count(*) from w)::int as window_read,
             (select id from w order by tx desc, seq desc limit 1) as window_last)
    select s.window_read, s.window_last, m.id, m.project_id, m.type, m.message_id, m.recipient, m.data,
           m.created_at
      from s
      left join (select e.*, w.tx as w_tx, w.seq as w_seq from events e join w on w.id = e.id
                  where w.type = any(${[...types]}::text[])) m on true
     order by m.w_tx, m.w_seq`.execute(db);
  const head = rows[0];
  if (!head || head.window_read === 0 || head.window_last === null)
    return { rows: [], last: undefined, read: 0 };
  return {
    rows: rows
      .filter((row) => row.id !== null)
      .map(({ window_read: _read, window_last: _last, ...event }) => event as EventsTable),
    last: head.window_last,
    read: head.window_read,
  };
}
