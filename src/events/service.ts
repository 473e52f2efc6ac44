/**
 * The event log: every outcome appends one record of one shape, in the SAME transaction as the
 * state change that causes it (pass the transaction as `executor`). Webhooks and analytics only
 * read it. Listeners are told after the caller commits, via `notify()`, so a dispatcher can wake
 * up without polling hard; a missed notification only delays, it never loses an event.
 *
 * An event's ID is its place in the log (readers keep a cursor and read `id > cursor`), so it is
 * made from the time of appending, above every ID already stored; the caller's `at` (an SMTP
 * receive time, say, for mail spooled before a restart) is only the event's `created_at`. An ID
 * made from `at` would sort behind the cursors and the event would never be read.
 */
import { EventEmitter } from 'node:events';
import type SQLite from 'better-sqlite3';
import type { Db, Store } from '../platform/db/database.js';
import type { EventsTable } from '../platform/db/tables.js';
import { idFloor, orderedIds } from '../platform/ids.js';
import { newestIdOnPostgres, rowsAfterOnPostgres } from './log-pg.js';
import type { EventPayload, LoggedEventType } from './types.js';
import { type EventWindow, windowOnPostgres, windowOnSqlite } from './window.js';

export interface NewEvent {
  readonly projectId: string;
  readonly type: LoggedEventType;
  readonly messageId?: string | null;
  readonly recipient?: string | null;
  /** The payload's `data`: `email_id`, `from`, `to`, `subject`, `tags` and the event's own object. */
  readonly data: Record<string, unknown>;
  readonly at?: number;
}

/** The row of a new event and its payload as webhooks see it. */
function newEvent(id: string, event: NewEvent): { row: EventsTable; payload: EventPayload } {
  const at = event.at ?? Date.now();
  return {
    row: {
      id,
      project_id: event.projectId,
      type: event.type,
      message_id: event.messageId ?? null,
      recipient: event.recipient ?? null,
      data: JSON.stringify(event.data),
      created_at: at,
    },
    payload: { id, type: event.type, created_at: new Date(at).toISOString(), data: event.data },
  };
}

/** The channel on which nodes tell each other that events were committed (platform/db/notifications.ts). */
const APPENDED = 'posthorn_events';

export function createEventService(db: Db, store: Pick<Store, 'engine' | 'sqlite' | 'notifications'>) {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(50);
  /** Events committed on any node (on SQLite, this one) wake this node's readers; from the first reader on. */
  let heard = false;
  const hear = () => {
    if (heard) return;
    heard = true;
    store.notifications.listen(APPENDED, () => emitter.emit('appended'));
  };
  const postgres = store.engine === 'postgresql';
  let insert: SQLite.Statement | undefined;
  let ids: ReturnType<typeof orderedIds> | undefined;
  /** The next event ID; the first call seeds the generator from the newest ID in the store. */
  const nextId = (): string => {
    if (!ids) {
      ids = orderedIds('evt');
      ids.seed(newestStoredId(store.sqlite));
    }
    return ids.next();
  };
  /** On PostgreSQL the seed is read asynchronously, once, before the first ID. */
  let seeded: Promise<void> | undefined;
  const seedAsync = (): Promise<void> => {
    seeded ??= newestIdOnPostgres(db).then((newest) => {
      ids = orderedIds('evt');
      ids.seed(newest);
    });
    return seeded;
  };
  const append = async (executor: Db, event: NewEvent): Promise<EventPayload> => {
    if (postgres) await seedAsync();
    const { row, payload } = newEvent(nextId(), event);
    await executor.insertInto('events').values(row).execute();
    return payload;
  };
  const rowsAfter = async (afterId: string, limit: number, executor: Db = db): Promise<EventRecord[]> => {
    if (postgres) return rowsAfterOnPostgres(executor, afterId, limit);
    return executor
      .selectFrom('events')
      .selectAll()
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
  };
  return {
    /** Appends one event with `executor` (a transaction); returns the payload as webhooks see it. */
    append,

    /**
     * Appends one event in the transaction `trx` of a group commit: on SQLite the prepared
     * statement of `appendInTransaction` (synchronous, no promise), on PostgreSQL `append`.
     */
    appendWithin(trx: Db, event: NewEvent): EventPayload | Promise<EventPayload> {
      return postgres ? append(trx, event) : this.appendInTransaction(event);
    },

    /**
     * `append` without Kysely, for the send path's group commit, which appends one event per
     * accepted message while every other request waits: a prepared statement costs a fraction of
     * building the query. Only for a caller inside a transaction (it holds the connection lock), so
     * the row lands in that transaction and nobody else's.
     */
    appendInTransaction(event: NewEvent): EventPayload {
      const sqlite = store.sqlite;
      if (!sqlite.inTransaction) throw new Error('appendInTransaction needs an open transaction');
      const { row, payload } = newEvent(nextId(), event);
      insert ??= sqlite.prepare(
        `insert into events (id, project_id, type, message_id, recipient, data, created_at)
         values (@id, @project_id, @type, @message_id, @recipient, @data, @created_at)`,
      );
      insert.run(row);
      return payload;
    },

    /**
     * Appends several events with `executor` (a transaction) in one statement; returns their
     * payloads. For a batch that appends many at once on PostgreSQL (a statement per event would
     * cost a round trip each).
     */
    async appendMany(executor: Db, events: readonly NewEvent[]): Promise<EventPayload[]> {
      if (events.length === 0) return [];
      if (postgres) await seedAsync();
      const made = events.map((event) => newEvent(nextId(), event));
      await executor
        .insertInto('events')
        .values(made.map((m) => m.row))
        .execute();
      return made.map((m) => m.payload);
    },

    /**
     * The rows of new events, their IDs taken, for a caller that inserts them in a statement of its
     * own (the delivery outcome writer's one statement on PostgreSQL, store-writes-pg.ts).
     */
    async rowsOf(events: readonly NewEvent[]): Promise<EventsTable[]> {
      if (postgres) await seedAsync();
      return events.map((event) => newEvent(nextId(), event).row);
    },

    /**
     * Appends a batch's events in the transaction `trx`: one insert on PostgreSQL (`appendMany`),
     * the prepared statement per event on SQLite (`appendInTransaction`: the transaction holds the
     * connection, so the rows land in it). The caller need not know which engine it runs on.
     */
    async appendBatchWithin(trx: Db, events: readonly NewEvent[]): Promise<EventPayload[]> {
      if (postgres) return this.appendMany(trx, events);
      return events.map((event) => this.appendInTransaction(event));
    },

    /**
     * Tells listeners (the webhook dispatcher, the delivery engine) that events were committed: on
     * this node at once, and on PostgreSQL every other node too.
     */
    notify(): void {
      store.notifications.notify(APPENDED);
    },

    onAppended(listener: () => void): () => void {
      hear();
      emitter.on('appended', listener);
      return () => emitter.off('appended', listener);
    },

    /** Events of a project after an event ID, oldest first (outbox readers page with this). */
    async listAfter(afterId: string, limit: number): Promise<EventPayload[]> {
      if (postgres) return (await rowsAfterOnPostgres(db, afterId, limit)).map(toPayload);
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toPayload);
    },

    /** Whole rows after an event ID, oldest first: what outbox consumers (webhooks, analytics) read. */
    rowsAfter,

    /**
     * The next `limit` events after `afterId`, of which only those of `types` are read whole
     * (window.ts); `types` undefined: every event, as `rowsAfter`. For readers that skip most types.
     */
    async windowAfter(
      afterId: string,
      limit: number,
      types: readonly string[] | undefined,
      executor: Db = db,
    ): Promise<EventWindow> {
      if (types === undefined) {
        const rows = await rowsAfter(afterId, limit, executor);
        return { rows, last: rows.at(-1)?.id, read: rows.length };
      }
      return postgres
        ? windowOnPostgres(executor, afterId, limit, types)
        : windowOnSqlite(executor, afterId, limit, types);
    },

    /**
     * Deletes events created before `cutoff` (retention), at most `batch` per call so the write lock
     * is held briefly; returns how many went. IDs carry their append time, so the primary key finds
     * them (an event appended now with an older `created_at` stays for the whole window).
     */
    async purgeBefore(cutoff: number, batch = 5000): Promise<number> {
      const bound = idFloor('evt', cutoff);
      const result = await db
        .deleteFrom('events')
        .where('id', 'in', (q) =>
          q.selectFrom('events').select('id').where('id', '<', bound).orderBy('id').limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** A message's events, oldest first, each with the recipient it concerns (null: the whole message). */
    async timeline(messageId: string): Promise<Array<EventPayload & { recipient: string | null }>> {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...toPayload(row), recipient: row.recipient }));
    },

    async forMessage(messageId: string): Promise<EventPayload[]> {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute();
      return rows.map(toPayload);
    },
  };
}

/**
 * The newest event ID this store has seen: the newest event, or a cursor when retention removed
 * every event a consumer had read.
 */
function newestStoredId(sqlite: SQLite.Database): string | undefined {
  const row = sqlite
    .prepare<[], { id: string | null }>(
      `select max(id) as id from (select max(id) as id from events
       union all select max(last_event_id) from event_cursors)`,
    )
    .get();
  return row?.id ?? undefined;
}

export type EventRecord = EventsTable;

export function toPayload(row: { id: string; type: string; created_at: number; data: string }): EventPayload {
  return {
    id: row.id,
    type: row.type as LoggedEventType,
    created_at: new Date(row.created_at).toISOString(),
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

export type EventService = ReturnType<typeof createEventService>;
