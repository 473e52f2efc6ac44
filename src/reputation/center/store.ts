/**
 * The only file that reads and writes `reputation_hourly` (migration 0025), through Kysely.
 */
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { ReputationHourlyTable } from '../../platform/db/tables.js';
import type { Block, Counts } from './outcomes.js';

export interface HourlyDelta {
  readonly projectId: string;
  readonly kind: 'domain' | 'lane';
  readonly name: string;
  readonly hour: number;
  readonly counts: Counts;
  readonly block: Block | null;
}

export function createReputationStore(db: Db) {
  return {
    /** Adds `delta` to its row (made when missing), within the projector's transaction. */
    async add(trx: Db, delta: HourlyDelta): Promise<void> {
      const row: ReputationHourlyTable = {
        project_id: delta.projectId,
        kind: delta.kind,
        name: delta.name,
        hour: delta.hour,
        ...delta.counts,
        last_block_at: delta.block?.at ?? null,
        last_block_category: delta.block?.category ?? null,
        last_block_response: delta.block?.response ?? null,
        last_block_mx: delta.block?.mx ?? null,
      };
      const sum = (column: keyof Counts) =>
        sql<number>`reputation_hourly.${sql.ref(column)} + excluded.${sql.ref(column)}`;
      // A newer block replaces the one kept; a delta without one keeps it.
      const latest = <T>(column: string) =>
        sql<T>`case when excluded.last_block_at >= coalesce(reputation_hourly.last_block_at, 0)
                 then excluded.${sql.ref(column)} else reputation_hourly.${sql.ref(column)} end`;
      await trx
        .insertInto('reputation_hourly')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['project_id', 'kind', 'name', 'hour']).doUpdateSet({
            delivered: sum('delivered'),
            bounced: sum('bounced'),
            hard_bounced: sum('hard_bounced'),
            deferred: sum('deferred'),
            complained: sum('complained'),
            blocked: sum('blocked'),
            last_block_at: latest<number | null>('last_block_at'),
            last_block_category: latest<string | null>('last_block_category'),
            last_block_response: latest<string | null>('last_block_response'),
            last_block_mx: latest<string | null>('last_block_mx'),
          }),
        )
        .execute();
    },

    /** A project's rows from `firstHour` on (primary-key range per kind and name). */
    window(projectId: string, firstHour: number): Promise<ReputationHourlyTable[]> {
      return db
        .selectFrom('reputation_hourly')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('hour', '>=', firstHour)
        .execute();
    },

    /** Deletes rows of hours before `hour` (retention); returns how many went. */
    async purgeBefore(hour: number): Promise<number> {
      const result = await db.deleteFrom('reputation_hourly').where('hour', '<', hour).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type ReputationStore = ReturnType<typeof createReputationStore>;
