/**
 * The attempt queue's leases on PostgreSQL (the port is store-queue.ts), for dispatchers on several
 * nodes sharing one database.
 *
 * A claim locks its endpoint's row first (`FOR NO KEY UPDATE`: the fan-out's inserts, which only
 * check the row exists, never wait for it), so the claims of one endpoint on several nodes take
 * turns and the count of its attempts leased now, on every node, keeps within the per-endpoint
 * limit. It then picks due attempts `FOR UPDATE SKIP LOCKED` (an attempt whose outcome another
 * node is writing is skipped, not waited for) and leases them with a token of its own
 * (`webhook_attempts.lease`). Releases and outcomes name the token: a node whose lease ran out,
 * and whose attempt another node has claimed since, changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { AttemptLeases, ClaimedAttempt } from './store-queue.js';

export function pgAttemptLeases(db: Db): AttemptLeases {
  return {
    async claim(endpointId, now, limit, lockUntil, perEndpoint) {
      return db.transaction().execute(async (trx) => {
        const endpoint = await trx
          .selectFrom('webhook_endpoints')
          .select('id')
          .where('id', '=', endpointId)
          .where('status', '=', 'enabled')
          .forNoKeyUpdate()
          .executeTakeFirst();
        if (!endpoint) return [];
        const leased = await trx
          .selectFrom('webhook_attempts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', endpointId)
          .where('state', '=', 'pending')
          .where('locked_until', '>', now)
          .executeTakeFirst();
        const room = Math.min(limit, perEndpoint - Number(leased?.n ?? 0));
        if (room <= 0) return [];
        const { rows } = await sql<ClaimedAttempt>`
          with claimed as (
            update webhook_attempts set locked_until = ${lockUntil}, lease = ${randomUUID()}
             where id in (select id from webhook_attempts
                           where endpoint_id = ${endpointId} and state = 'pending' and due_at <= ${now}
                             and (locked_until is null or locked_until <= ${now})
                           order by due_at limit ${room}
                             for update skip locked)
            returning id, message_id, endpoint_id, attempt, "trigger", replay_of, lease, due_at)
          select c.id, c.message_id, c.endpoint_id, c.attempt, c."trigger", c.replay_of, c.lease, m.body
            from claimed c join webhook_messages m on m.id = c.message_id
           order by c.due_at, c.id`.execute(trx);
        return rows;
      });
    },

    async nextWakeAt() {
      const row = await db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_endpoints as e', 'e.id', 'a.endpoint_id')
        .select(sql<number | null>`min(greatest(a.due_at, coalesce(a.locked_until, 0)))`.as('at'))
        .where('a.state', '=', 'pending')
        .where('e.status', '=', 'enabled')
        .executeTakeFirst();
      return row?.at ?? undefined;
    },

    async releaseLocks(attempts) {
      if (attempts.length === 0) return;
      await sql`
        update webhook_attempts a set locked_until = null, lease = null
          from unnest(${attempts.map((a) => a.id)}::text[], ${attempts.map((a) => a.lease)}::text[]) as v(id, lease)
         where a.id = v.id and a.state = 'pending' and a.lease = v.lease`.execute(db);
    },

    async completeAttempt(executor, attempt, patch) {
      const result = await executor
        .updateTable('webhook_attempts')
        .set({ ...patch, locked_until: null })
        .where('id', '=', attempt.id)
        .where('state', '=', 'pending')
        .where(sql<boolean>`lease = ${attempt.lease}`)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
