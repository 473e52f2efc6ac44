/**
 * Messages rendered at admission (`message_raw`, migration 0019): written by the prerender stage,
 * read by render workers on their own connections, dropped by a trigger once the message's status
 * is final and, for anything left (a message that never ends), by message retention. On SQLite the
 * batch is prepared statements in one transaction; on PostgreSQL one statement over `unnest`.
 */
import type SQLite from 'better-sqlite3';
import { exclusive } from '../../platform/db/connection-guard.js';
import type { Db, Store } from '../../platform/db/database.js';
import { withRelaxedSync } from '../../platform/db/durability.js';
import { idFloor } from '../../platform/ids.js';
import { sql } from 'kysely';
import { FINAL_MESSAGE_STATUSES } from '../queue/message-status.js';
import type { RawMessage } from './worker-queries.js';

export interface RawRow extends RawMessage {
  readonly messageId: string;
}

const FINAL = FINAL_MESSAGE_STATUSES.map((status) => `'${status}'`).join(', ');

/** Renderings on PostgreSQL: one statement for the batch (the last rendering of a message wins). */
async function writeOnPostgres(db: Db, rows: readonly RawRow[], now: number): Promise<number> {
  const last = [...new Map(rows.map((row) => [row.messageId, row])).values()];
  const result = await sql`
    insert into message_raw (message_id, signing, size, bytes, created_at)
    select v.id, v.signing, v.size, v.bytes, ${now}
      from unnest(${last.map((r) => r.messageId)}::text[], ${last.map((r) => r.signing)}::text[],
                  ${last.map((r) => r.size)}::bigint[], ${last.map((r) => r.bytes)}::bytea[])
           as v(id, signing, size, bytes)
     where exists (select 1 from messages m where m.id = v.id and m.status not in (${sql.raw(FINAL)}))
    on conflict (message_id) do update
       set signing = excluded.signing, size = excluded.size, bytes = excluded.bytes, created_at = excluded.created_at`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

export function createRawStore(store: Pick<Store, 'engine' | 'db' | 'sqlite'>) {
  const { db } = store;
  const postgres = store.engine === 'postgresql';
  let insert:
    | SQLite.Statement<[{ id: string; signing: string; size: number; bytes: Buffer; now: number }]>
    | undefined;
  return {
    /**
     * Stores renderings in one transaction (relaxed durability: a lost one is rendered again at
     * delivery). A message whose status is already final (sent, cancelled) gets none: the trigger
     * that drops renderings has already run for it. Returns how many were stored.
     */
    write(rows: readonly RawRow[], now: number): Promise<number> {
      if (rows.length === 0) return Promise.resolve(0);
      if (postgres) return writeOnPostgres(db, rows, now);
      const { sqlite } = store;
      insert ??= sqlite.prepare(
        `insert or replace into message_raw (message_id, signing, size, bytes, created_at)
         select @id, @signing, @size, @bytes, @now where exists
           (select 1 from messages where id = @id and status not in (${FINAL}))`,
      );
      const statement = insert;
      return exclusive(db, sqlite, () =>
        withRelaxedSync(sqlite, () =>
          sqlite
            .transaction(() => {
              let stored = 0;
              for (const row of rows)
                stored += statement.run({
                  id: row.messageId,
                  signing: row.signing,
                  size: row.size,
                  bytes: row.bytes,
                  now,
                }).changes;
              return stored;
            })
            .immediate(),
        ),
      );
    },

    /**
     * Retention (`retention.messages_days`): renderings of messages accepted before `cutoff` that
     * have no job left to deliver, up to `batch` at a time; returns how many were removed.
     */
    async purgeBefore(cutoff: number, batch = 500): Promise<number> {
      const result = await db
        .deleteFrom('message_raw')
        .where('message_id', 'in', (q) =>
          q
            .selectFrom('message_raw as r')
            .select('r.message_id')
            .where('r.message_id', '<', idFloor('msg', cutoff))
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('delivery_jobs as j')
                    .select('j.id')
                    .whereRef('j.message_id', '=', 'r.message_id')
                    .where('j.state', 'in', ['queued', 'scheduled']),
                ),
              ),
            )
            .orderBy('r.message_id')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type RawStore = ReturnType<typeof createRawStore>;
