/**
 * The only file that queries `suppressions`. Every query names the list: a project's live or test
 * one. The one-address lookup (`find`, asked by every validation) is a prepared statement on
 * SQLite (platform/db/prepared-read.ts), Kysely on PostgreSQL.
 */
import type { Db, Store } from '../platform/db/database.js';
import { preparedRead } from '../platform/db/prepared-read.js';
import type { KeyMode, SuppressionReason, SuppressionsTable } from '../platform/db/tables.js';

export type SuppressionRow = SuppressionsTable;

/** SQLite allows 32,766 bound parameters; far more than one send's recipients. */
export const LOOKUP_CHUNK = 1000;

export function createSuppressionStore(db: Db, store?: Pick<Store, 'engine' | 'db' | 'sqlite'>) {
  const findOne = preparedRead<[string, KeyMode, string], SuppressionRow>(
    store,
    'select * from suppressions where project_id = ? and mode = ? and email = ?',
  );
  return {
    /** Inserts, or on an address already listed updates its reason and source (keeping id and created_at). */
    async upsert(row: SuppressionRow, executor: Db = db): Promise<SuppressionRow> {
      return executor
        .insertInto('suppressions')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['project_id', 'mode', 'email']).doUpdateSet({
            reason: row.reason,
            source: row.source,
            message_id: row.message_id,
            updated_at: row.updated_at,
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async find(projectId: string, mode: KeyMode, email: string): Promise<SuppressionRow | undefined> {
      if (findOne) return findOne(projectId, mode, email);
      return db
        .selectFrom('suppressions')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('mode', '=', mode)
        .where('email', '=', email)
        .executeTakeFirst();
    },

    /** One statement over the unique (project_id, mode, email) index for up to LOOKUP_CHUNK addresses. */
    async findMany(
      projectId: string,
      mode: KeyMode,
      emails: readonly string[],
      executor: Db = db,
    ): Promise<SuppressionRow[]> {
      if (emails.length === 0) return [];
      return executor
        .selectFrom('suppressions')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('mode', '=', mode)
        .where('email', 'in', emails)
        .execute();
    },

    async remove(projectId: string, mode: KeyMode, email: string, executor: Db = db): Promise<boolean> {
      const result = await executor
        .deleteFrom('suppressions')
        .where('project_id', '=', projectId)
        .where('mode', '=', mode)
        .where('email', '=', email)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Newest first; `after` is the last ID of the previous page. */
    async list(
      projectId: string,
      mode: KeyMode,
      options: { limit: number; after?: string | undefined; reason?: SuppressionReason | undefined },
    ): Promise<SuppressionRow[]> {
      let query = db
        .selectFrom('suppressions')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('mode', '=', mode);
      if (options.after) query = query.where('id', '<', options.after);
      if (options.reason) query = query.where('reason', '=', options.reason);
      return query.orderBy('id', 'desc').limit(options.limit).execute();
    },
  };
}

export type SuppressionStore = ReturnType<typeof createSuppressionStore>;
