/**
 * Queries of grants and their tokens (part of the OAuth store, store.ts). A token is read with its
 * grant and client in one query: the hot path of every request made with an access token.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { OAuthGrantsTable, OAuthTokensTable } from '../platform/db/tables.js';

export type GrantRow = Selectable<OAuthGrantsTable>;
export type TokenRow = Selectable<OAuthTokensTable>;

/** A token with what authenticating it needs of its grant and client. */
export interface TokenWithGrant extends TokenRow {
  readonly client_id: string;
  readonly client_name: string | null;
  readonly user_id: string;
  readonly organization_id: string;
  readonly project_id: string;
  readonly grant_scopes: string;
  readonly grant_revoked_at: number | null;
}

/** A grant as the connected-apps list shows it. */
export interface GrantListRow extends GrantRow {
  readonly client_name: string | null;
}

export function grantQueries(db: Db) {
  return {
    async insertGrant(executor: Db, row: GrantRow): Promise<void> {
      await executor.insertInto('oauth_grants').values(row).execute();
    },
    async findGrant(id: string): Promise<GrantRow | undefined> {
      return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Ends the grant, and so every token of it; false when it had ended already. */
    async revokeGrant(id: string, now: number, executor: Db = db): Promise<boolean> {
      const result = await executor
        .updateTable('oauth_grants')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** The project's live grants (of one user when `userId` is given), newest first. */
    async listGrants(projectId: string, userId: string | undefined): Promise<GrantListRow[]> {
      let query = db
        .selectFrom('oauth_grants as g')
        .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
        .selectAll('g')
        .select('c.name as client_name')
        .where('g.project_id', '=', projectId)
        .where('g.revoked_at', 'is', null);
      if (userId !== undefined) query = query.where('g.user_id', '=', userId);
      return query.orderBy('g.id', 'desc').execute();
    },
    /** Writes many last-used times in one transaction. */
    async touchGrants(entries: ReadonlyMap<string, number>): Promise<void> {
      if (entries.size === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const [id, at] of entries) {
          await trx.updateTable('oauth_grants').set({ last_used_at: at }).where('id', '=', id).execute();
        }
      });
    },

    async insertTokens(executor: Db, rows: readonly TokenRow[]): Promise<void> {
      if (rows.length > 0)
        await executor
          .insertInto('oauth_tokens')
          .values([...rows])
          .execute();
    },
    async findToken(hash: string, executor: Db = db): Promise<TokenWithGrant | undefined> {
      return executor
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
        .selectAll('t')
        .select([
          'c.id as client_id',
          'c.name as client_name',
          'g.user_id',
          'g.organization_id',
          'g.project_id',
          'g.scopes as grant_scopes',
          'g.revoked_at as grant_revoked_at',
        ])
        .where('t.token_hash', '=', hash)
        .executeTakeFirst();
    },
    /** Marks a refresh token rotated; false when it was used already. */
    async spendRefresh(executor: Db, hash: string, now: number): Promise<boolean> {
      const result = await executor
        .updateTable('oauth_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', hash)
        .where('kind', '=', 'refresh')
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async revokeToken(hash: string, now: number): Promise<void> {
      await db
        .updateTable('oauth_tokens')
        .set({ revoked_at: now })
        .where('token_hash', '=', hash)
        .where('revoked_at', 'is', null)
        .execute();
    },
    /** Tokens expired before `before`. */
    async purgeTokens(before: number): Promise<number> {
      const result = await db.deleteFrom('oauth_tokens').where('expires_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
