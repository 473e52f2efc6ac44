/**
 * The only file that queries `api_keys`. The lookup of every request made with a key
 * (`findForAuth`) is a prepared statement on SQLite (platform/db/prepared-read.ts), Kysely on
 * PostgreSQL.
 */
import type { Db, Store } from '../platform/db/database.js';
import { preparedRead } from '../platform/db/prepared-read.js';
import type { ApiKeysTable, ProjectStatus } from '../platform/db/tables.js';

export type ApiKeyRow = ApiKeysTable;

/** A key with what authenticating it needs of its project (null fields: no such project). */
export interface KeyWithProject extends ApiKeyRow {
  readonly organization_id: string | null;
  readonly project_status: ProjectStatus | null;
}

export function createKeyStore(db: Db, store?: Pick<Store, 'engine' | 'db' | 'sqlite'>) {
  const forAuth = preparedRead<[string], KeyWithProject>(
    store,
    // Subqueries rather than a join: better-sqlite3 reads a joined row about ten times slower.
    `select k.*,
            (select organization_id from projects where id = k.project_id) as organization_id,
            (select status from projects where id = k.project_id) as project_status
       from api_keys k where k.key_hash = ?`,
  );
  return {
    /** The key with this hash and its project's organization and status, in one read. */
    async findForAuth(hash: string): Promise<KeyWithProject | undefined> {
      if (forAuth) return forAuth(hash);
      return db
        .selectFrom('api_keys as k')
        .leftJoin('projects as p', 'p.id', 'k.project_id')
        .selectAll('k')
        .select(['p.organization_id as organization_id', 'p.status as project_status'])
        .where('k.key_hash', '=', hash)
        .executeTakeFirst();
    },
    async insert(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
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
