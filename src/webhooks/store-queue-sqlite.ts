/**
 * The attempt queue's leases on SQLite (the port is store-queue.ts): one node, whose dispatcher
 * holds every lease, so attempts carry no token and its own count of requests in flight is the
 * per-endpoint limit.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { AttemptLeases } from './store-queue.js';

export function sqliteAttemptLeases(db: Db): AttemptLeases {
  return {
    async claim(endpointId, now, limit, lockUntil) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('webhook_attempts as a')
          .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
          .select([
            'a.id',
            'a.message_id',
            'a.endpoint_id',
            'a.attempt',
            'a.trigger',
            'a.replay_of',
            'm.body',
          ])
          .where('a.endpoint_id', '=', endpointId)
          .where('a.state', '=', 'pending')
          .where('a.due_at', '<=', now)
          .where((eb) => eb.or([eb('a.locked_until', 'is', null), eb('a.locked_until', '<=', now)]))
          .orderBy('a.due_at')
          .limit(limit)
          .execute();
        if (rows.length > 0) {
          await trx
            .updateTable('webhook_attempts')
            .set({ locked_until: lockUntil })
            .where(
              'id',
              'in',
              rows.map((row) => row.id),
            )
            .execute();
        }
        return rows.map((row) => ({ ...row, lease: null }));
      });
    },

    async nextWakeAt() {
      const row = await db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_endpoints as e', 'e.id', 'a.endpoint_id')
        .select(sql<number | null>`min(max(a.due_at, coalesce(a.locked_until, 0)))`.as('at'))
        .where('a.state', '=', 'pending')
        .where('e.status', '=', 'enabled')
        .executeTakeFirst();
      return row?.at ?? undefined;
    },

    async releaseLocks(attempts) {
      if (attempts.length === 0) return;
      await db
        .updateTable('webhook_attempts')
        .set({ locked_until: null })
        .where(
          'id',
          'in',
          attempts.map((attempt) => attempt.id),
        )
        .where('state', '=', 'pending')
        .execute();
    },

    async completeAttempt(executor, attempt, patch) {
      const result = await executor
        .updateTable('webhook_attempts')
        .set({ ...patch, locked_until: null })
        .where('id', '=', attempt.id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
