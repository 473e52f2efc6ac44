/** The only queries of `status_subscriptions`. */
import type { Db } from '../../platform/db/database.js';
import type { StatusSubscriptionsTable } from '../../platform/db/tables.js';

export type SubscriptionRow = StatusSubscriptionsTable;

export function createSubscriptionStore(db: Db) {
  return {
    async byDestination(
      channel: SubscriptionRow['channel'],
      key: string,
    ): Promise<SubscriptionRow | undefined> {
      return db
        .selectFrom('status_subscriptions')
        .selectAll()
        .where('channel', '=', channel)
        .where('destination_key', '=', key)
        .executeTakeFirst();
    },

    async byId(id: string, executor: Db = db): Promise<SubscriptionRow | undefined> {
      return executor.selectFrom('status_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async byVerifyHash(hash: string): Promise<SubscriptionRow | undefined> {
      return db
        .selectFrom('status_subscriptions')
        .selectAll()
        .where('verify_token_hash', '=', hash)
        .executeTakeFirst();
    },

    async byUnsubscribeHash(hash: string): Promise<SubscriptionRow | undefined> {
      return db
        .selectFrom('status_subscriptions')
        .selectAll()
        .where('unsubscribe_token_hash', '=', hash)
        .executeTakeFirst();
    },

    async insert(row: SubscriptionRow): Promise<void> {
      await db.insertInto('status_subscriptions').values(row).execute();
    },

    async update(id: string, patch: Partial<SubscriptionRow>, executor: Db = db): Promise<void> {
      await executor.updateTable('status_subscriptions').set(patch).where('id', '=', id).execute();
    },

    async remove(id: string): Promise<void> {
      await db.deleteFrom('status_subscriptions').where('id', '=', id).execute();
    },

    /** Leases up to `limit` webhook subscriptions whose challenge is due. */
    async claimChallenges(now: number, limit: number, lockUntil: number): Promise<SubscriptionRow[]> {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('status_subscriptions')
          .selectAll()
          .where('challenge_due_at', '<=', now)
          .where('state', '=', 'pending')
          .where((eb) =>
            eb.or([eb('challenge_locked_until', 'is', null), eb('challenge_locked_until', '<=', now)]),
          )
          .orderBy('challenge_due_at')
          .limit(limit)
          .execute();
        if (rows.length > 0)
          await trx
            .updateTable('status_subscriptions')
            .set({ challenge_locked_until: lockUntil })
            .where(
              'id',
              'in',
              rows.map((r) => r.id),
            )
            .execute();
        return rows;
      });
    },

    async nextChallengeAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('status_subscriptions')
        .select((eb) => eb.fn.min<number>('challenge_due_at').as('at'))
        .where('challenge_due_at', 'is not', null)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row?.at == null ? undefined : Number(row.at);
    },

    /** IDs of the subscriptions verified at or before `at` (who hears of an update made then). */
    async verifiedBy(executor: Db, at: number): Promise<string[]> {
      const rows = await executor
        .selectFrom('status_subscriptions')
        .select('id')
        .where('state', '=', 'verified')
        .where('verified_at', '<=', at)
        .execute();
      return rows.map((row) => row.id);
    },

    async counts(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('status_subscriptions')
        .select((eb) => ['channel', 'state', eb.fn.countAll<number>().as('n')])
        .groupBy(['channel', 'state'])
        .execute();
      return Object.fromEntries(rows.map((r) => [`${r.channel}:${r.state}`, Number(r.n)]));
    },
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;
