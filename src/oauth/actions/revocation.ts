/**
 * `POST /oauth/revoke` (RFC 7009): always 200, whether or not the token existed, so it reveals
 * nothing. Holding a token is enough to end it (a leaked token should be easy to kill); a client
 * that identifies itself must authenticate as registered, and then only its own tokens are
 * revoked. A refresh token ends its whole grant (RFC 7009 §2.1); an access token ends itself.
 */
import { InvalidRequest } from '../errors.js';
import { authenticateClient, type ClientCredentials, presentsClient } from '../helpers/client-auth.js';
import { hashSecret, looksLike } from '../helpers/secrets.js';
import type { OAuthStore } from '../store.js';

export type RevocationRequest = ClientCredentials & {
  readonly token?: string | undefined;
  readonly token_type_hint?: string | undefined;
};

export function revocationAction(store: OAuthStore, realm: string) {
  return async function revoke(request: RevocationRequest): Promise<void> {
    const client = presentsClient(request)
      ? await authenticateClient(request, (id) => store.findClient(id), realm)
      : undefined;
    if (!request.token) throw new InvalidRequest('token is required.');
    const token = request.token;
    if (!looksLike('pho', token) && !looksLike('phr', token)) return;
    const hash = hashSecret(token);
    const row = await store.findToken(hash);
    if (!row || (client !== undefined && row.client_id !== client.id)) return;
    const now = Date.now();
    if (row.kind === 'refresh') await store.revokeGrant(row.grant_id, now);
    else await store.revokeToken(hash, now);
  };
}
