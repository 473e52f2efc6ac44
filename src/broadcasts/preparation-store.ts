/**
 * The only place that writes `broadcast_renderings`: the messages of a broadcast scheduled ahead,
 * composed and signed before its send time (preparation.ts), which the expansion queues under
 * their prepared IDs and delivery's render threads read (delivery/compose/worker-queries.ts, and
 * the PostgreSQL load); and the sweep of renderings nobody will send (a broadcast cancelled, moved
 * or sent; a contact who left or changed).
 */
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import { writeTransaction } from '../platform/db/savepoints.js';
import type { BroadcastRow } from './store.js';

export interface Staged {
  readonly contactId: string;
  readonly messageId: string;
  readonly signing: string;
  readonly size: number;
  readonly bytes: Buffer;
}

/** A contact's prepared message as the expansion sees it (no bytes). */
export interface StagedRef {
  readonly messageId: string;
  readonly createdAt: number;
}

/** Whether the expansion queued the message of the rendering at `ref` (its ledger names it). */
const queued = (ref: string) =>
  sql<boolean>`exists (select 1 from broadcast_messages l where l.message_id = ${sql.ref(ref)})`;

/** Renderings removed per statement by the sweep: each statement holds the store briefly. */
const SWEEP_CHUNK = 500;

export function createPreparationStore(db: Db, sqlite: SQLite.Database) {
  return {
    /**
     * Scheduled broadcasts whose preparation may run now: due within `leadMs`, not yet due, not
     * fully prepared for their send time (oldest send time first).
     */
    async preparable(now: number, leadMs: number, limit: number): Promise<BroadcastRow[]> {
      return (
        db
          .selectFrom('broadcasts')
          .selectAll()
          .where('status', '=', 'scheduled')
          // A test broadcast's messages never leave the box: nothing to prepare.
          .where('mode', '=', 'live')
          .where('send_at', '>', now)
          .where('send_at', '<=', now + leadMs)
          .where((eb) =>
            eb.or([
              eb('prepared_at', 'is', null),
              eb('prepared_for', 'is', null),
              eb('prepared_for', '!=', eb.ref('send_at')),
            ]),
          )
          .orderBy('send_at')
          .limit(limit)
          .execute()
      );
    },

    /**
     * Stores a batch's renderings and moves the preparation's cursor, in one transaction (relaxed
     * durability: a batch lost to a power cut is prepared again, or rendered at delivery); only
     * while the broadcast is still scheduled for `sendAt`. False when it no longer is (nothing
     * written). A contact's earlier rendering (another send time) is replaced.
     */
    async stage(
      row: Pick<BroadcastRow, 'id' | 'send_at'>,
      rendered: readonly Staged[],
      cursor: string,
      done: boolean,
      now: number,
    ): Promise<boolean> {
      const sendAt = row.send_at as number;
      return writeTransaction(
        db,
        sqlite,
        async (trx) => {
          const moved = await trx
            .updateTable('broadcasts')
            .set((eb) => ({
              prepare_cursor: cursor,
              prepared: eb('prepared', '+', rendered.length),
              prepared_for: sendAt,
              prepared_at: done ? now : null,
            }))
            .where('id', '=', row.id)
            .where('status', '=', 'scheduled')
            .where('send_at', '=', sendAt)
            .executeTakeFirst();
          if (Number(moved.numUpdatedRows) === 0) return false;
          if (rendered.length > 0) {
            await trx
              .insertInto('broadcast_renderings')
              .values(
                rendered.map((r) => ({
                  message_id: r.messageId,
                  broadcast_id: row.id,
                  contact_id: r.contactId,
                  send_at: sendAt,
                  signing: r.signing,
                  size: r.size,
                  bytes: r.bytes,
                  created_at: now,
                })),
              )
              .onConflict((oc) =>
                oc.columns(['broadcast_id', 'contact_id']).doUpdateSet((eb) => ({
                  message_id: eb.ref('excluded.message_id'),
                  send_at: eb.ref('excluded.send_at'),
                  signing: eb.ref('excluded.signing'),
                  size: eb.ref('excluded.size'),
                  bytes: eb.ref('excluded.bytes'),
                  created_at: eb.ref('excluded.created_at'),
                })),
              )
              .execute();
          }
          return true;
        },
        { relaxed: true },
      );
    },

    /** The prepared messages of these contacts for the broadcast's send time, by contact. */
    async staged(
      row: Pick<BroadcastRow, 'id' | 'send_at'>,
      contactIds: readonly string[],
    ): Promise<Map<string, StagedRef>> {
      if (contactIds.length === 0 || row.send_at === null) return new Map();
      const rows = await db
        .selectFrom('broadcast_renderings')
        .select(['contact_id', 'message_id', 'created_at'])
        .where('broadcast_id', '=', row.id)
        .where('contact_id', 'in', contactIds)
        .where('send_at', '=', row.send_at)
        .execute();
      return new Map(
        rows.map((r) => [r.contact_id, { messageId: r.message_id, createdAt: Number(r.created_at) }]),
      );
    },

    /**
     * Drops up to SWEEP_CHUNK renderings nobody will send: of a broadcast no longer scheduled nor
     * sending, those its expansion did not queue (a contact who left or changed meanwhile, a
     * cancel); of a scheduled one, those dated for a send time it no longer has. A queued
     * message's rendering stays until its status is final (a trigger drops it then, migration
     * 0029). Returns how many were dropped.
     */
    async sweep(): Promise<number> {
      const holders = await db
        .selectFrom('broadcasts as b')
        .select(['b.id', 'b.status', 'b.send_at'])
        .where('b.status', '!=', 'sending')
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('broadcast_renderings as r')
              .select('r.message_id')
              .whereRef('r.broadcast_id', '=', 'b.id'),
          ),
        )
        .execute();
      let removed = 0;
      for (const holder of holders) {
        let chunk = db
          .selectFrom('broadcast_renderings as r')
          .select('r.message_id')
          .where('r.broadcast_id', '=', holder.id);
        if (holder.status === 'scheduled') {
          if (holder.send_at === null) continue;
          chunk = chunk.where('r.send_at', '!=', Number(holder.send_at));
        } else {
          chunk = chunk.where((eb) => eb.not(queued('r.message_id')));
        }
        const result = await db
          .deleteFrom('broadcast_renderings')
          .where('message_id', 'in', chunk.limit(SWEEP_CHUNK))
          .executeTakeFirst();
        removed += Number(result.numDeletedRows);
        if (removed >= SWEEP_CHUNK) break;
      }
      return removed;
    },

    /** Retention: renderings older than `cutoff` whose message never ended (message_raw's rule). */
    async purgeBefore(cutoff: number): Promise<number> {
      const result = await db
        .deleteFrom('broadcast_renderings')
        .where('created_at', '<', cutoff)
        .where(queued('broadcast_renderings.message_id'))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type PreparationStore = ReturnType<typeof createPreparationStore>;
