/**
 * Issues the tokens of a grant (RFC 6749 §5.1): an access token `pho_` narrowed to `accessScopes`,
 * and, for a client registered for the refresh_token grant, a refresh token `phr_` holding
 * `refreshScopes` (the scopes the client may narrow to later). Only their SHA-256 is written, in
 * the caller's transaction; the response is what the client sees once.
 */
import type { Db } from '../../platform/db/database.js';
import type { OAuthStore, TokenRow } from '../store.js';
import { formatScope } from './scope.js';
import { hashSecret, newSecret } from './secrets.js';

export interface Lifetimes {
  readonly accessMs: number;
  readonly refreshMs: number;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token?: string;
  readonly scope: string;
}

export interface Issue {
  readonly grantId: string;
  readonly accessScopes: readonly string[];
  /** Null: no refresh token (the client did not register the refresh_token grant). */
  readonly refreshScopes: readonly string[] | null;
  readonly lifetimes: Lifetimes;
  readonly now: number;
}

export async function issueTokens(executor: Db, store: OAuthStore, issue: Issue): Promise<TokenResponse> {
  const { grantId, now, lifetimes } = issue;
  const access = newSecret('pho');
  const refresh = issue.refreshScopes === null ? undefined : newSecret('phr');
  const row = (
    kind: TokenRow['kind'],
    token: string,
    scopes: readonly string[],
    lifetime: number,
  ): TokenRow => ({
    token_hash: hashSecret(token),
    kind,
    grant_id: grantId,
    scopes: JSON.stringify(scopes),
    expires_at: now + lifetime,
    used_at: null,
    revoked_at: null,
    created_at: now,
  });
  const rows = [row('access', access, issue.accessScopes, lifetimes.accessMs)];
  if (refresh !== undefined && issue.refreshScopes !== null)
    rows.push(row('refresh', refresh, issue.refreshScopes, lifetimes.refreshMs));
  await store.insertTokens(executor, rows);
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(lifetimes.accessMs / 1000),
    ...(refresh === undefined ? {} : { refresh_token: refresh }),
    scope: formatScope(issue.accessScopes),
  };
}
