/** The only file that queries `api_keys`. */
import type { Db } from '../platform/db/database.js';
import type { ApiKeysTable } from '../platform/db/tables.js';

export type ApiKeyRow = ApiKeysTable;

export function createKeyStore(db: Db) {
  return {
    async insert(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
    },
    async findByHash(hash: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    },
    async findById(id: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async listByProject(projectId: string): Promise<ApiKeyRow[]> {
      return db
        .selectFrom('api_keys')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
    },
    async revoke(id: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Writes many last-used times in one transaction. */
    async touchMany(entries: ReadonlyMap<string, number>): Promise<void> {
      if (entries.size === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const [id, at] of entries) {
          await trx.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
        }
      });
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
