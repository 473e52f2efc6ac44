/** The only file that queries `audit_log`. */
import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { AuditLogTable } from '../platform/db/tables.js';

export type AuditRow = Selectable<AuditLogTable>;

export function createAuditStore(db: Db) {
  return {
    async insert(row: Insertable<AuditLogTable>, executor: Db = db): Promise<void> {
      await executor.insertInto('audit_log').values(row).execute();
    },
    /** The details of a coalesced record whose count grew (coalesce.ts). */
    async updateDetails(id: string, details: string): Promise<void> {
      await db.updateTable('audit_log').set({ details }).where('id', '=', id).execute();
    },
    /**
     * Newest first; the index on (organization_id, created_at) serves it. `after`: only records
     * older than that one (by time, then ID); `actionPrefix`: only actions starting with it.
     */
    async listByOrganization(
      organizationId: string,
      options: { limit: number; after?: string; actionPrefix?: string },
    ): Promise<AuditRow[]> {
      let query = db.selectFrom('audit_log').selectAll().where('organization_id', '=', organizationId);
      if (options.after !== undefined) {
        const cursor = await db
          .selectFrom('audit_log')
          .select(['created_at', 'id'])
          .where('organization_id', '=', organizationId)
          .where('id', '=', options.after)
          .executeTakeFirst();
        if (cursor === undefined) return [];
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', cursor.created_at),
            eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
          ]),
        );
      }
      if (options.actionPrefix) {
        // substr, not LIKE: the same exact, case-sensitive match on SQLite and PostgreSQL, no escaping.
        const prefix = options.actionPrefix;
        query = query.where(sql<string>`substr(action, 1, ${prefix.length})`, '=', prefix);
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
