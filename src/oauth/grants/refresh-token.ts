/**
 * The refresh_token grant with rotation (RFC 6749 §6, OAuth 2.1 §4.3.1): the refresh token must be
 * this client's, live, and unused; it is spent, and a new access token and a new refresh token are
 * issued in one transaction. A refresh token presented a second time means it leaked: the whole
 * grant is revoked (OAuth 2.1 §4.3.1, the reuse detection of the security BCP). The requested
 * scope may only narrow (the new access token); the new refresh token keeps the old one's scopes.
 */
import { InvalidGrant, InvalidRequest } from '../errors.js';
import { issueTokens, type TokenResponse } from '../helpers/issue-tokens.js';
import { narrowedScopes } from '../helpers/scope.js';
import { hashSecret, looksLike } from '../helpers/secrets.js';
import type { ClientRow } from '../store.js';
import type { GrantContext, TokenParams } from './context.js';

const REUSED = 'The refresh token was already used; the grant is revoked, so authorize again.';

export async function refreshTokenGrant(
  ctx: GrantContext,
  client: ClientRow,
  params: TokenParams,
): Promise<TokenResponse> {
  const { store } = ctx;
  const token = params.refresh_token;
  if (!token) throw new InvalidRequest('refresh_token is required for grant_type refresh_token.');
  const hash = hashSecret(token);
  const row = looksLike('phr', token) ? await store.findToken(hash) : undefined;
  const now = Date.now();
  if (row?.kind !== 'refresh' || row.client_id !== client.id)
    throw new InvalidGrant('The refresh token is not valid for this client.');
  if (row.grant_revoked_at !== null || row.revoked_at !== null)
    throw new InvalidGrant('The refresh token has been revoked.');
  if (row.used_at !== null) {
    await store.revokeGrant(row.grant_id, now);
    throw new InvalidGrant(REUSED);
  }
  if (row.expires_at <= now) throw new InvalidGrant('The refresh token has expired; authorize again.');
  const held = JSON.parse(row.scopes) as string[];
  const scopes = narrowedScopes(params.scope, held);
  if (!(await ctx.consentStands(row.user_id, row.organization_id, row.project_id)))
    throw new InvalidGrant('The member who approved this grant no longer belongs to the project.');

  const issued = await ctx.db.transaction().execute(async (trx) => {
    if (!(await store.spendRefresh(trx, hash, now))) {
      await store.revokeGrant(row.grant_id, now, trx);
      return undefined;
    }
    return issueTokens(trx, store, {
      grantId: row.grant_id,
      accessScopes: scopes,
      refreshScopes: held,
      lifetimes: ctx.lifetimes,
      now,
    });
  });
  if (!issued) throw new InvalidGrant(REUSED);
  return issued;
}
