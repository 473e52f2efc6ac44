/**
 * What a client discovers before it starts: the authorization server metadata (RFC 8414) at
 * `/.well-known/oauth-authorization-server`, and the protected resource metadata (RFC 9728) of
 * the API, which names this server, so an agent given only the API's URL finds where to register.
 */
import { SUPPORTED_SCOPES } from '../helpers/scope.js';

export interface Endpoints {
  /** `server.public_url` without a trailing slash: the `iss` of every response (RFC 9207). */
  readonly issuer: string;
  /** The dashboard's consent page. */
  readonly authorization: string;
}

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

export function authorizationServerMetadata(endpoints: Endpoints) {
  const { issuer } = endpoints;
  return {
    issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/openapi.json`,
  };
}

export function protectedResourceMetadata(endpoints: Endpoints) {
  return {
    resource: endpoints.issuer,
    authorization_servers: [endpoints.issuer],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ['header'],
  };
}
