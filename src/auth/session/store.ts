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
    /** The user's sessions not revoked and not past their absolute end, newest first. */
    async listLive(userId: string, now: number): Promise<SessionRow[]> {
      return db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },
    /** Ends one live session of the user; false when the user has no such live session. */
    async revokeOwn(userId: string, id: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Ends every session of the user but one (the one making the request); the rows it ended. */
    async revokeOthers(
      userId: string,
      keepId: string,
      at: number,
    ): Promise<Pick<SessionRow, 'id' | 'last_seen_at' | 'expires_at'>[]> {
      return db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('id', '!=', keepId)
        .where('revoked_at', 'is', null)
        .returning(['id', 'last_seen_at', 'expires_at'])
        .execute();
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
