/**
 * Client metadata of a registration (RFC 7591 §2), checked beyond its types (schemas.ts): each
 * redirect URI may be registered (redirect-uri.ts), the grant and response types are consistent
 * (§2.1: `code` needs `authorization_code`), and the scopes are API key scopes. Defaults as RFC
 * 7591 sets them: `client_secret_basic`, `["authorization_code"]`, `["code"]`.
 */
import type { ClientAuthMethod } from '../../platform/db/tables.js';
import { InvalidClientMetadata, InvalidRedirectUri } from '../errors.js';
import { redirectUriProblem } from './redirect-uri.js';
import { formatScope, parseScope } from './scope.js';
import { unknownScope } from '../../auth/scopes.js';

export interface RegistrationInput {
  readonly redirect_uris: readonly string[];
  readonly client_name?: string | undefined;
  readonly scope?: string | undefined;
  readonly software_id?: string | undefined;
  readonly software_version?: string | undefined;
  readonly token_endpoint_auth_method?: ClientAuthMethod | undefined;
  readonly grant_types?: readonly ('authorization_code' | 'refresh_token')[] | undefined;
  readonly response_types?: readonly 'code'[] | undefined;
}

export interface ClientMetadata {
  readonly redirectUris: string[];
  readonly name: string | null;
  readonly scope: string | null;
  readonly softwareId: string | null;
  readonly softwareVersion: string | null;
  readonly authMethod: ClientAuthMethod;
  readonly grantTypes: string[];
  readonly responseTypes: string[];
}

export function checkMetadata(input: RegistrationInput): ClientMetadata {
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidRedirectUri(problem);
  }
  const grantTypes = [...new Set(input.grant_types ?? ['authorization_code'])];
  const responseTypes = [...new Set(input.response_types ?? ['code'])];
  if (!grantTypes.includes('authorization_code'))
    throw new InvalidClientMetadata(
      'grant_types must include authorization_code: response_types "code" needs it (RFC 7591 §2.1).',
    );
  const scopes = parseScope(input.scope);
  const unknown = unknownScope(scopes);
  if (unknown !== undefined)
    throw new InvalidClientMetadata(`scope: "${unknown}" is not a scope of this server.`);
  return {
    redirectUris: [...new Set(input.redirect_uris)],
    name: input.client_name ?? null,
    scope: scopes.length === 0 ? null : formatScope(scopes),
    softwareId: input.software_id ?? null,
    softwareVersion: input.software_version ?? null,
    authMethod: input.token_endpoint_auth_method ?? 'client_secret_basic',
    grantTypes,
    responseTypes,
  };
}
