/** The only file that queries `audit_log`. */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { AuditLogTable } from '../platform/db/tables.js';

export type AuditRow = Selectable<AuditLogTable>;

export function createAuditStore(db: Db) {
  return {
    async insert(row: Insertable<AuditLogTable>, executor: Db = db): Promise<void> {
      await executor.insertInto('audit_log').values(row).execute();
    },
    /** Newest first; the index on (organization_id, created_at) serves it. */
    async listByOrganization(organizationId: string, limit: number): Promise<AuditRow[]> {
      return db
        .selectFrom('audit_log')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
