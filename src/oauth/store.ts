/**
 * With store-grants.ts, the only file that queries the OAuth tables: registered clients and
 * authorization codes here. Codes are found by the SHA-256 of the code; spending one is a guarded
 * update, so two exchanges of one code cannot both succeed.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { OAuthClientsTable, OAuthCodesTable } from '../platform/db/tables.js';
import { grantQueries } from './store-grants.js';

export type ClientRow = Selectable<OAuthClientsTable>;
export type CodeRow = Selectable<OAuthCodesTable>;
export type { GrantListRow, GrantRow, TokenRow, TokenWithGrant } from './store-grants.js';

export function createOAuthStore(db: Db) {
  return {
    async insertClient(row: ClientRow): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },
    async findClient(id: string): Promise<ClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async insertCode(row: CodeRow): Promise<void> {
      await db.insertInto('oauth_codes').values(row).execute();
    },
    async findCode(hash: string, executor: Db = db): Promise<CodeRow | undefined> {
      return executor.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
    },
    /** Marks the code used and names the grant it made; false when it was used already. */
    async spendCode(executor: Db, hash: string, grantId: string, now: number): Promise<boolean> {
      const result = await executor
        .updateTable('oauth_codes')
        .set({ used_at: now, grant_id: grantId })
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Codes expired before `before` (a spent one is kept as long, to catch its reuse). */
    async purgeCodes(before: number): Promise<number> {
      const result = await db.deleteFrom('oauth_codes').where('expires_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    ...grantQueries(db),
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
