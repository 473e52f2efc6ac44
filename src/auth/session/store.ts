/** The only file that queries `sessions`. */
import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { SessionsTable } from '../../platform/db/tables.js';

export type SessionRow = Selectable<SessionsTable>;

export function createSessionStore(db: Db) {
  return {
    async insert(row: SessionsTable): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },
    async findByHash(hash: string): Promise<SessionRow | undefined> {
      return db.selectFrom('sessions').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    },
    async findById(id: string): Promise<SessionRow | undefined> {
      return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async revoke(id: string, at: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
    },
    /** Every live session of the user in the organization (a removed member); returns their IDs. */
    async revokeMember(
      userId: string,
      organizationId: string,
      at: number,
      executor: Db = db,
    ): Promise<string[]> {
      const rows = await executor
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('organization_id', '=', organizationId)
        .where('revoked_at', 'is', null)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },
    /** Every live session of the user (a password reset, TOTP reset). */
    async revokeUser(userId: string, at: number, executor: Db = db): Promise<string[]> {
      const rows = await executor
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },
    async touchMany(entries: ReadonlyMap<string, number>): Promise<void> {
      if (entries.size === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const [id, at] of entries) {
          await trx
            .updateTable('sessions')
            .set({ last_seen_at: at })
            .where('id', '=', id)
            .where('last_seen_at', '<', at)
            .execute();
        }
      });
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
