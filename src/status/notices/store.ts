/**
 * The only queries of `status_notifications`: one row per update and subscriber (a unique index
 * makes the fan-out safe to run twice), leased while being sent, retried by its due time.
 */
import type { Db } from '../../platform/db/database.js';
import type { StatusNotificationsTable } from '../../platform/db/tables.js';
import { newId } from '../../platform/ids.js';

export type NotificationRow = StatusNotificationsTable;

export function createNoticeStore(db: Db) {
  return {
    /** Queues `updateId` for each subscriber; pairs already queued are left alone. */
    async queue(
      executor: Db,
      updateId: string,
      subscriptionIds: readonly string[],
      now: number,
    ): Promise<void> {
      for (let i = 0; i < subscriptionIds.length; i += 200) {
        const rows = subscriptionIds.slice(i, i + 200).map(
          (subscriptionId): NotificationRow => ({
            id: newId('ntf', now),
            update_id: updateId,
            subscription_id: subscriptionId,
            state: 'pending',
            attempts: 0,
            due_at: now,
            locked_until: null,
            last_error: null,
            response_status: null,
            message_id: null,
            sent_at: null,
            created_at: now,
          }),
        );
        await executor
          .insertInto('status_notifications')
          .values(rows)
          .onConflict((oc) => oc.columns(['update_id', 'subscription_id']).doNothing())
          .execute();
      }
    },

    async claim(now: number, limit: number, lockUntil: number): Promise<NotificationRow[]> {
      return db.transaction().execute(async (trx) => {
        // One subscriber hears of changes in their order: only its oldest pending notice is sent.
        const rows = await trx
          .selectFrom('status_notifications as n')
          .selectAll('n')
          .where('n.state', '=', 'pending')
          .where('n.due_at', '<=', now)
          .where((eb) => eb.or([eb('n.locked_until', 'is', null), eb('n.locked_until', '<=', now)]))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('status_notifications as o')
                  .select('o.id')
                  .whereRef('o.subscription_id', '=', 'n.subscription_id')
                  .where('o.state', '=', 'pending')
                  .whereRef('o.id', '<', 'n.id'),
              ),
            ),
          )
          .orderBy('n.due_at')
          .limit(limit)
          .execute();
        if (rows.length > 0)
          await trx
            .updateTable('status_notifications')
            .set({ locked_until: lockUntil })
            .where(
              'id',
              'in',
              rows.map((r) => r.id),
            )
            .execute();
        return rows;
      });
    },

    async finish(id: string, patch: Partial<NotificationRow>): Promise<void> {
      await db
        .updateTable('status_notifications')
        .set({ ...patch, locked_until: null })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .execute();
    },

    async release(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('status_notifications')
        .set({ locked_until: null })
        .where('id', 'in', ids)
        .execute();
    },

    async nextDueAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('status_notifications')
        .select((eb) => eb.fn.min<number>('due_at').as('at'))
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row?.at == null ? undefined : Number(row.at);
    },

    async forSubscription(subscriptionId: string): Promise<NotificationRow[]> {
      return db
        .selectFrom('status_notifications')
        .selectAll()
        .where('subscription_id', '=', subscriptionId)
        .orderBy('created_at')
        .execute();
    },
  };
}

export type NoticeStore = ReturnType<typeof createNoticeStore>;
