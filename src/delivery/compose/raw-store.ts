/**
 * Messages rendered at admission (`message_raw`, migration 0019): written by the prerender stage,
 * read by render workers on their own connections, dropped by a trigger once the message's status
 * is final and, for anything left (a message that never ends), by message retention.
 */
import type SQLite from 'better-sqlite3';
import { exclusive } from '../../platform/db/connection-guard.js';
import type { Db } from '../../platform/db/database.js';
import { withRelaxedSync } from '../../platform/db/durability.js';
import { idFloor } from '../../platform/ids.js';
import { FINAL_MESSAGE_STATUSES } from '../queue/message-status.js';

export interface RawMessage {
  readonly signing: string;
  /** Octets before dot-stuffing. */
  readonly size: number;
  /** Dot-stuffed, ready for DATA. */
  readonly bytes: Buffer;
}

export interface RawRow extends RawMessage {
  readonly messageId: string;
}

const FINAL = FINAL_MESSAGE_STATUSES.map((status) => `'${status}'`).join(', ');

/** The stored rendering of a message, read on a render worker's connection. */
export function rawReader(sqlite: SQLite.Database): (messageId: string) => RawMessage | undefined {
  const statement = sqlite.prepare<[string], RawMessage>(
    'select signing, size, bytes from message_raw where message_id = ?',
  );
  return (messageId) => statement.get(messageId);
}

export function createRawStore(db: Db, sqlite: SQLite.Database) {
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
      insert ??= sqlite.prepare(
        `insert or replace into message_raw (message_id, signing, size, bytes, created_at)
         select @id, @signing, @size, @bytes, @now where exists
           (select 1 from messages where id = @id and status not in (${FINAL}))`,
      );
      const statement = insert;
      return exclusive(db, sqlite, () =>
        withRelaxedSync(sqlite, () =>
          sqlite.transaction(() => {
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
          })(),
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
