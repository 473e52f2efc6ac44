/**
 * The only file that reads and writes `reputation_connections` and `reputation_provider_data`
 * (migration 0025b), through Kysely.
 */
import type { Db } from '../../platform/db/database.js';
import type { ReputationConnectionsTable, ReputationProviderDataTable } from '../../platform/db/tables.js';
import type { ProviderItem } from './providers/http.js';

export type ConnectionRow = ReputationConnectionsTable;
export type ProviderDataRow = ReputationProviderDataTable;

export function createConnectionStore(db: Db) {
  return {
    async insert(row: ConnectionRow): Promise<void> {
      await db.insertInto('reputation_connections').values(row).execute();
    },

    get(projectId: string, id: string): Promise<ConnectionRow | undefined> {
      return db
        .selectFrom('reputation_connections')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    list(projectId?: string): Promise<ConnectionRow[]> {
      let query = db.selectFrom('reputation_connections').selectAll().orderBy('id');
      if (projectId !== undefined) query = query.where('project_id', '=', projectId);
      return query.execute();
    },

    /** Deletes the connection, its sealed credential and its data; false when there was none. */
    async remove(projectId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('reputation_provider_data').where('connection_id', '=', id).execute();
        const result = await trx
          .deleteFrom('reputation_connections')
          .where('project_id', '=', projectId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(result.numDeletedRows) === 1;
      });
    },

    /** Stores what a sync fetched (replacing items of the same subject and day) and marks it synced. */
    async saveSync(id: string, items: readonly ProviderItem[], now: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const item of items) {
          await trx
            .insertInto('reputation_provider_data')
            .values({
              connection_id: id,
              kind: item.kind,
              subject: item.subject,
              day: item.day,
              data: JSON.stringify(item.data),
              fetched_at: now,
            })
            .onConflict((oc) =>
              oc
                .columns(['connection_id', 'kind', 'subject', 'day'])
                .doUpdateSet({ data: JSON.stringify(item.data), fetched_at: now }),
            )
            .execute();
        }
        await trx
          .updateTable('reputation_connections')
          .set({ last_synced_at: now, last_error: null, last_error_at: null })
          .where('id', '=', id)
          .execute();
      });
    },

    async saveError(id: string, message: string, now: number): Promise<void> {
      await db
        .updateTable('reputation_connections')
        .set({ last_error: message, last_error_at: now })
        .where('id', '=', id)
        .execute();
    },

    /** A connection's data from `firstDay` (YYYY-MM-DD) on, newest day first. */
    data(id: string, firstDay: string): Promise<ProviderDataRow[]> {
      return db
        .selectFrom('reputation_provider_data')
        .selectAll()
        .where('connection_id', '=', id)
        .where('day', '>=', firstDay)
        .orderBy('day', 'desc')
        .orderBy('kind')
        .orderBy('subject')
        .execute();
    },
  };
}

export type ConnectionStore = ReturnType<typeof createConnectionStore>;
