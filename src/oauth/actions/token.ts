/**
 * `POST /oauth/token` (RFC 6749 §3.2, spec §4.7): authenticates the client, then runs its grant.
 * Errors are the RFC's: invalid_request, invalid_grant, invalid_scope, unsupported_grant_type
 * (400), unauthorized_client (400: a grant type the client did not register) and invalid_client
 * (401, with a Basic challenge when Basic was tried).
 */
import { UnauthorizedClient, UnsupportedGrantType, InvalidRequest } from '../errors.js';
import { authorizationCodeGrant } from '../grants/authorization-code.js';
import type { GrantContext, TokenParams } from '../grants/context.js';
import { refreshTokenGrant } from '../grants/refresh-token.js';
import { authenticateClient, type ClientCredentials } from '../helpers/client-auth.js';
import type { TokenResponse } from '../helpers/issue-tokens.js';
import type { ClientRow } from '../store.js';

const grants = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
} as const satisfies Record<
  string,
  (ctx: GrantContext, client: ClientRow, params: TokenParams) => Promise<TokenResponse>
>;

type GrantType = keyof typeof grants;

const isGrantType = (value: string): value is GrantType => Object.hasOwn(grants, value);

export type TokenRequest = TokenParams & ClientCredentials & { readonly grant_type?: string | undefined };

export function tokenAction(ctx: GrantContext, realm: string) {
  return async function token(request: TokenRequest): Promise<TokenResponse> {
    const client = await authenticateClient(request, (id) => ctx.store.findClient(id), realm);
    const type = request.grant_type;
    if (!type) throw new InvalidRequest('grant_type is required.');
    if (!isGrantType(type))
      throw new UnsupportedGrantType(
        `grant_type ${type} is not supported; use authorization_code or refresh_token.`,
      );
    if (!(JSON.parse(client.grant_types) as string[]).includes(type))
      throw new UnauthorizedClient(`This client did not register the ${type} grant.`);
    return grants[type](ctx, client, request);
  };
}
