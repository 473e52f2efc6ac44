/**
 * The hot read of every request made with an access token: the token with its grant and client,
 * by the token's SHA-256. A storage port (DESIGN.md §8) with its SQLite adapter: one statement
 * prepared once on the raw better-sqlite3 handle, run without waiting for Kysely's connection
 * lock, which the send path's group commit holds across its fsync (`scripts/bench oauth` measured
 * the access token's sends at 0.43x an API key's while this went through Kysely).
 *
 * Reading beside a transaction in flight on the one connection is safe here: a token a rolled-back
 * exchange wrote was never handed to anyone, and a revocation seen early only refuses sooner.
 */
import type SQLite from 'better-sqlite3';
import type { OAuthStore } from './store.js';
import type { GrantRow, TokenRow, TokenWithGrant } from './store-grants.js';

export interface AccessTokenLookup {
  find(tokenHash: string): TokenWithGrant | undefined | Promise<TokenWithGrant | undefined>;
}

/** The PostgreSQL adapter: the store's query (a pool connection, no lock to wait for). */
export function kyselyAccessLookup(store: Pick<OAuthStore, 'findToken'>): AccessTokenLookup {
  return { find: (tokenHash) => store.findToken(tokenHash) };
}

interface Statements {
  readonly token: SQLite.Statement<[string], TokenRow>;
  readonly grant: SQLite.Statement<
    [string],
    Pick<GrantRow, 'client_id' | 'user_id' | 'organization_id' | 'project_id' | 'scopes' | 'revoked_at'>
  >;
  readonly client: SQLite.Statement<[string], { name: string | null }>;
}

export function sqliteAccessLookup(sqlite: SQLite.Database): AccessTokenLookup {
  let statements: Statements | undefined;
  return {
    find(tokenHash) {
      // Prepared on first use: the tables exist only once migrations ran. Three lookups by primary
      // key, not one join: SQLite plans a join of these tables (no statistics) at about ten times
      // the cost of the three reads.
      statements ??= {
        token: sqlite.prepare('select * from oauth_tokens where token_hash = ?'),
        grant: sqlite.prepare(
          'select client_id, user_id, organization_id, project_id, scopes, revoked_at from oauth_grants where id = ?',
        ),
        client: sqlite.prepare('select name from oauth_clients where id = ?'),
      };
      const token = statements.token.get(tokenHash);
      const grant = token && statements.grant.get(token.grant_id);
      const client = grant && statements.client.get(grant.client_id);
      if (!token || !grant || !client) return undefined;
      return {
        ...token,
        client_id: grant.client_id,
        client_name: client.name,
        user_id: grant.user_id,
        organization_id: grant.organization_id,
        project_id: grant.project_id,
        grant_scopes: grant.scopes,
        grant_revoked_at: grant.revoked_at,
      };
    },
  };
}
