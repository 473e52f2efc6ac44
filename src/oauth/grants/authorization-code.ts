/**
 * The authorization_code grant (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3, RFC 7636 §4.6): the code must be
 * this client's, unexpired, unused, for this exact redirect URI, and the verifier must hash to its
 * challenge; every check runs before anything is written, so a refusal issues nothing. The code is
 * spent in the transaction that makes the grant and its tokens; a code presented again (a replay,
 * or a race with the first exchange) revokes the grant made from it (RFC 6749 §4.1.2).
 */
import { newId } from '../../platform/ids.js';
import { InvalidGrant, InvalidRequest } from '../errors.js';
import { issueTokens, type TokenResponse } from '../helpers/issue-tokens.js';
import { checkVerifier } from '../helpers/pkce.js';
import { narrowedScopes } from '../helpers/scope.js';
import { hashSecret } from '../helpers/secrets.js';
import type { ClientRow } from '../store.js';
import type { GrantContext, TokenParams } from './context.js';

const required = (value: string | undefined, name: string): string => {
  if (!value) throw new InvalidRequest(`${name} is required for grant_type authorization_code.`);
  return value;
};

export async function authorizationCodeGrant(
  ctx: GrantContext,
  client: ClientRow,
  params: TokenParams,
): Promise<TokenResponse> {
  const { store } = ctx;
  const code = required(params.code, 'code');
  const redirectUri = required(params.redirect_uri, 'redirect_uri');
  const verifier = required(params.code_verifier, 'code_verifier');
  const hash = hashSecret(code);
  const row = await store.findCode(hash);
  const now = Date.now();
  if (!row || row.client_id !== client.id)
    throw new InvalidGrant('The authorization code is not valid for this client.');
  if (row.used_at !== null) {
    if (row.grant_id !== null) await store.revokeGrant(row.grant_id, now);
    throw new InvalidGrant('The authorization code was already used; every token issued from it is revoked.');
  }
  if (row.expires_at <= now) throw new InvalidGrant('The authorization code has expired; authorize again.');
  if (row.redirect_uri !== redirectUri)
    throw new InvalidGrant('redirect_uri differs from the one of the authorization request.');
  checkVerifier(verifier, row.code_challenge);
  const granted = JSON.parse(row.scopes) as string[];
  const scopes = narrowedScopes(params.scope, granted);
  if (!(await ctx.consentStands(row.user_id, row.organization_id, row.project_id)))
    throw new InvalidGrant('The member who approved this request no longer belongs to the project.');

  const grantId = newId('grt', now);
  const refreshes = (JSON.parse(client.grant_types) as string[]).includes('refresh_token');
  const issued = await ctx.db.transaction().execute(async (trx) => {
    if (!(await store.spendCode(trx, hash, grantId, now))) {
      // Another exchange of this code committed first: the grant it made is ended too.
      const spent = await store.findCode(hash, trx);
      if (spent?.grant_id) await store.revokeGrant(spent.grant_id, now, trx);
      return undefined;
    }
    await store.insertGrant(trx, {
      id: grantId,
      client_id: client.id,
      user_id: row.user_id,
      organization_id: row.organization_id,
      project_id: row.project_id,
      scopes: row.scopes,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    });
    return issueTokens(trx, store, {
      grantId,
      accessScopes: scopes,
      refreshScopes: refreshes ? granted : null,
      lifetimes: ctx.lifetimes,
      now,
    });
  });
  if (!issued)
    throw new InvalidGrant('The authorization code was already used; every token issued from it is revoked.');
  return issued;
}
