/** The only file that queries `users`' credentials, `login_codes` and `recovery_codes`. */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { LoginCodesTable, UsersTable } from '../../platform/db/tables.js';

export type UserRow = Selectable<UsersTable>;
export type LoginCodeRow = Selectable<LoginCodesTable>;

export function createUserStore(db: Db) {
  return {
    async findByEmail(email: string, executor: Db = db): Promise<UserRow | undefined> {
      return executor.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },
    async findById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async insert(row: Insertable<UsersTable>, executor: Db = db): Promise<void> {
      await executor.insertInto('users').values(row).execute();
    },
    async setPassword(id: string, hash: string, at: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ password_hash: hash, password_updated_at: at })
        .where('id', '=', id)
        .execute();
    },
    async setPendingTotp(id: string, sealed: string | null): Promise<void> {
      await db.updateTable('users').set({ totp_pending_sealed: sealed }).where('id', '=', id).execute();
    },
    /** Turns the pending secret on, with the step of the code that confirmed it and new recovery codes. */
    async enableTotp(
      id: string,
      sealed: string,
      step: number,
      at: number,
      recoveryHashes: readonly string[],
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('users')
          .set({
            totp_secret_sealed: sealed,
            totp_pending_sealed: null,
            totp_last_step: step,
            totp_enabled_at: at,
          })
          .where('id', '=', id)
          .where('totp_pending_sealed', '=', sealed)
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) return false;
        await trx.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
        await trx
          .insertInto('recovery_codes')
          .values(
            recoveryHashes.map((hash) => ({ user_id: id, code_hash: hash, used_at: null, created_at: at })),
          )
          .execute();
        return true;
      });
    },
    async disableTotp(id: string, executor: Db = db): Promise<void> {
      await executor
        .updateTable('users')
        .set({
          totp_secret_sealed: null,
          totp_pending_sealed: null,
          totp_last_step: null,
          totp_enabled_at: null,
        })
        .where('id', '=', id)
        .execute();
      await executor.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
    },
    /** Replaces the user's recovery codes with new ones (the earlier ones, used or not, go). */
    async replaceRecoveryCodes(id: string, recoveryHashes: readonly string[], at: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('recovery_codes').where('user_id', '=', id).execute();
        await trx
          .insertInto('recovery_codes')
          .values(
            recoveryHashes.map((hash) => ({ user_id: id, code_hash: hash, used_at: null, created_at: at })),
          )
          .execute();
      });
    },
    /** Records a TOTP step as used; false when it (or a later one) was used already: a replay. */
    async claimTotpStep(id: string, step: number): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ totp_last_step: step })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Marks an unused recovery code used; false when there is none such. */
    async useRecoveryCode(id: string, hash: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('recovery_codes')
        .set({ used_at: at })
        .where('user_id', '=', id)
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** The user's live login code, replacing any earlier one. */
    async putLoginCode(row: Insertable<LoginCodesTable>): Promise<void> {
      await db
        .insertInto('login_codes')
        .values(row)
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({
            code_hash: row.code_hash,
            attempts: 0,
            expires_at: row.expires_at,
            created_at: row.created_at,
          }),
        )
        .execute();
    },
    async findLoginCode(userId: string): Promise<LoginCodeRow | undefined> {
      return db.selectFrom('login_codes').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    /** Counts a wrong try on exactly this code (a newer code starts again). */
    async countWrongTry(userId: string, codeHash: string): Promise<void> {
      await db
        .updateTable('login_codes')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .execute();
    },
    /** Takes the code: true for the one caller that deleted it, so a code is accepted once. */
    async takeLoginCode(userId: string, codeHash: string): Promise<boolean> {
      const result = await db
        .deleteFrom('login_codes')
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async deleteLoginCode(userId: string): Promise<void> {
      await db.deleteFrom('login_codes').where('user_id', '=', userId).execute();
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
