/**
 * With store-schedule.ts (scheduled messages) and store-held.ts (held agent sends), the only
 * place that queries `messages`, `message_recipients`, `delivery_jobs` (writing new jobs) and
 * `idempotency_keys` for the send path. The accepted-send write is the hot path: on SQLite its
 * statements are prepared once on the raw handle (store-accepted-sqlite.ts), on PostgreSQL they
 * go through Kysely (store-accepted-pg.ts).
 */
import type SQLite from 'better-sqlite3';
import type { Db, Engine } from '../platform/db/database.js';
import type { KeyMode, MessageStatus } from '../platform/db/tables.js';
import { idFloor } from '../platform/ids.js';
import type { Draft, MessageDetail, MessageRef, MessageScope } from './model.js';
import { findIdempotentOnPostgres, insertAcceptedOnPostgres, modeOfOnPostgres } from './store-accepted-pg.js';
import { type AcceptedOnSqlite, acceptedOnSqlite, toRef } from './store-accepted-sqlite.js';
import { heldQueries } from './store-held.js';
import { scheduleQueries } from './store-schedule.js';

export type { HeldContent, HeldMessage } from './store-held.js';
export type { ScheduledRecipient } from './store-schedule.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface ListedMessage {
  readonly id: string;
  readonly from: string;
  readonly to: string[];
  readonly subject: string;
  readonly status: MessageStatus;
  readonly createdAt: number;
  readonly sendAt: number | null;
}

/**
 * The send path's store. `engine` picks the adapter of the accepted-send writes (the storage port
 * of DESIGN.md §8): SQLite's prepared statements, or store-accepted-pg.ts.
 */
export function createEmailStore(db: Db, sqlite: SQLite.Database, engine: Engine = 'sqlite') {
  const postgres = engine === 'postgresql';
  let sqliteWrites: AcceptedOnSqlite | undefined;
  // Prepared on first use: the tables exist only once migrations ran.
  const onSqlite = () => {
    sqliteWrites ??= acceptedOnSqlite(sqlite);
    return sqliteWrites;
  };

  return {
    /**
     * The message an unexpired idempotency key points at, if any. Keys are per project and mode:
     * a test key's record never answers a live send (whose mail the sandbox would swallow).
     */
    findIdempotent(
      projectId: string,
      mode: KeyMode,
      key: string,
      now: number,
    ): MessageRef | undefined | Promise<MessageRef | undefined> {
      if (postgres) return findIdempotentOnPostgres(db, projectId, mode, key, now - IDEMPOTENCY_TTL_MS);
      return onSqlite().findIdempotent(projectId, mode, key, now - IDEMPOTENCY_TTL_MS);
    },

    /**
     * `findIdempotent` from outside any transaction (a request's replay check). On SQLite under the
     * connection lock, so a group commit's open transaction is never read half-written. On
     * PostgreSQL straight from the pool: holding a pooled connection while the query takes another
     * left every connection waiting on the next under concurrent sends with one key (500s).
     */
    findIdempotentCommitted(
      projectId: string,
      mode: KeyMode,
      key: string,
      now: number,
    ): Promise<MessageRef | undefined> {
      if (postgres) return findIdempotentOnPostgres(db, projectId, mode, key, now - IDEMPOTENCY_TTL_MS);
      return db.connection().execute(async () => this.findIdempotent(projectId, mode, key, now));
    },

    /**
     * Writes one accepted send; run it inside a transaction (`db.transaction()`), whose connection
     * lock keeps other statements out. Returns the existing message instead when the draft's
     * idempotency key is already taken: then nothing is written.
     */
    insertAccepted(
      trx: Db,
      draft: Draft,
      now: number,
    ): { ref: MessageRef; created: boolean } | Promise<{ ref: MessageRef; created: boolean }> {
      if (postgres) return insertAcceptedOnPostgres(trx, draft, now, IDEMPOTENCY_TTL_MS);
      return onSqlite().insertAccepted(draft, now, IDEMPOTENCY_TTL_MS);
    },

    /** The mode of the key a message was sent with; synchronous, for a caller inside a transaction. */
    modeOf(messageId: string): KeyMode | undefined | Promise<KeyMode | undefined> {
      if (postgres) return modeOfOnPostgres(db, messageId);
      return onSqlite().modeOf(messageId);
    },

    /** The lane recorded on the job that carries a recipient (SQLite only, synchronous). */
    laneOfSqlite(messageId: string, recipient: string): string | undefined {
      if (postgres) throw new Error('laneOfSqlite is SQLite only');
      return onSqlite().laneOf(messageId, recipient);
    },

    /**
     * The lanes recorded on the jobs that carry these recipients, by `message_id\u0000recipient`
     * (either engine; a recipient whose job has no lane yet is left out).
     */
    async lanesOf(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>> {
      const lanes = new Map<string, string>();
      const wanted = new Set(pairs.map((p) => `${p.message_id}\u0000${p.recipient}`));
      const messages = [...new Set(pairs.map((p) => p.message_id))];
      // Chunked: SQLite caps the number of bound parameters of one statement.
      for (let i = 0; i < messages.length; i += 500) {
        const rows = await db
          .selectFrom('message_recipients as r')
          .innerJoin('delivery_jobs as j', (join) =>
            join.onRef('j.message_id', '=', 'r.message_id').onRef('j.domain', '=', 'r.domain'),
          )
          .select(['r.message_id', 'r.email', 'j.lane'])
          .where('r.message_id', 'in', messages.slice(i, i + 500))
          .where('j.lane', 'is not', null)
          .execute();
        for (const row of rows) {
          const key = `${row.message_id}\u0000${row.email}`;
          if (row.lane !== null && wanted.has(key)) lanes.set(key, row.lane);
        }
      }
      return lanes;
    },

    /** The modes of several messages in one query (either engine); unknown ones are left out. */
    async modesOf(messageIds: readonly string[]): Promise<Map<string, KeyMode>> {
      const modes = new Map<string, KeyMode>();
      const unique = [...new Set(messageIds)];
      // Chunked: SQLite caps the number of bound parameters of one statement.
      for (let i = 0; i < unique.length; i += 500) {
        const rows = await db
          .selectFrom('messages')
          .select(['id', 'mode'])
          .where('id', 'in', unique.slice(i, i + 500))
          .execute();
        for (const row of rows) modes.set(row.id, row.mode);
      }
      return modes;
    },

    async get(scope: MessageScope, id: string, executor: Db = db): Promise<MessageRef | undefined> {
      const row = await executor
        .selectFrom('messages')
        .select(['id', 'status', 'created_at'])
        .where('id', '=', id)
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode)
        .executeTakeFirst();
      return row && toRef(row);
    },

    /** A message's recipients and their statuses, in submission order. */
    async recipientStatuses(messageId: string, executor: Db = db): Promise<MessageDetail['recipients']> {
      return executor
        .selectFrom('message_recipients')
        .select(['email', 'kind', 'status'])
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute();
    },

    /**
     * Newest first (index messages_project_mode); `after` is the last ID of the previous page.
     * Fetches one extra row for has_more.
     */
    async list(scope: MessageScope, limit: number, after: string | undefined): Promise<ListedMessage[]> {
      let query = db
        .selectFrom('messages')
        .select(['id', 'from_header', 'subject', 'status', 'created_at', 'send_at'])
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode);
      if (after) query = query.where('id', '<', after);
      const rows = await query.orderBy('id', 'desc').limit(limit).execute();
      if (rows.length === 0) return [];
      const recipients = await db
        .selectFrom('message_recipients')
        .select(['message_id', 'display'])
        .where(
          'message_id',
          'in',
          rows.map((row) => row.id),
        )
        .where('kind', '=', 'to')
        .orderBy('id')
        .execute();
      const to = new Map<string, string[]>();
      for (const r of recipients) {
        const list = to.get(r.message_id) ?? [];
        list.push(r.display);
        to.set(r.message_id, list);
      }
      return rows.map((row) => ({
        id: row.id,
        from: row.from_header,
        to: to.get(row.id) ?? [],
        subject: row.subject,
        status: row.status,
        createdAt: row.created_at,
        sendAt: row.send_at,
      }));
    },

    ...scheduleQueries(),

    ...heldQueries(),

    /**
     * Live messages a project created since `dayStart` (seeds the daily quota, which test sends
     * stay out of); one range of messages_project_mode.
     */
    async countLiveSince(projectId: string, dayStart: number): Promise<number> {
      const row = await db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('mode', '=', 'live')
        .where('id', '>=', idFloor('msg', dayStart))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async purgeIdempotency(before: number): Promise<number> {
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Retention (`retention.messages_days`): drops the bodies of up to `batch` messages accepted
     * before `cutoff`, except those still waiting to be sent (a job queued or scheduled), which
     * need theirs. The message rows, recipients and events stay.
     */
    async purgeBodiesBefore(cutoff: number, batch = 500): Promise<number> {
      const result = await db
        .deleteFrom('message_bodies')
        .where('message_id', 'in', (q) =>
          q
            .selectFrom('message_bodies as b')
            .select('b.message_id')
            .where('b.message_id', '<', idFloor('msg', cutoff))
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('delivery_jobs as j')
                    .select('j.id')
                    .whereRef('j.message_id', '=', 'b.message_id')
                    .where('j.state', 'in', ['queued', 'scheduled']),
                ),
              ),
            )
            .orderBy('b.message_id')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type EmailStore = ReturnType<typeof createEmailStore>;
