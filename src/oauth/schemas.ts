/**
 * Request and response schemas of the OAuth endpoints (spec §2.10, §4.7) and of the consent and
 * connected-apps routes; they also write the OpenAPI document. The RFC endpoints ignore parameters
 * they do not know (RFC 6749 §3.1, §3.2; RFC 7591 §2) rather than refuse them.
 */
import { z } from 'zod';

const text = (max: number) => z.string().max(max);

export const registrationRequest = z.looseObject({
  redirect_uris: z
    .array(z.string().max(2000))
    .min(1)
    .max(10)
    .describe(
      '1 to 10; each https, or http to the loopback interface (127.0.0.1, [::1], localhost); no fragment. Matched exactly.',
    ),
  client_name: text(200).optional(),
  scope: text(2000).optional().describe('Space-separated API key scopes the client may ask for; none: any.'),
  software_id: text(200).optional(),
  software_version: text(200).optional(),
  token_endpoint_auth_method: z
    .enum(['none', 'client_secret_basic', 'client_secret_post'])
    .optional()
    .describe('Default client_secret_basic (RFC 7591); `none` for a public client (native app, agent, SPA).'),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .min(1)
    .optional()
    .describe('Default ["authorization_code"]; add refresh_token to receive refresh tokens.'),
  response_types: z.array(z.literal('code')).min(1).optional(),
});

export const registrationResponse = z.object({
  client_id: z.string(),
  client_id_issued_at: z.int(),
  client_secret: z.string().optional().describe('Shown once; stored only as its SHA-256.'),
  client_secret_expires_at: z.int().optional().describe('0: the secret does not expire.'),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  client_name: z.string().optional(),
  scope: z.string().optional(),
  software_id: z.string().optional(),
  software_version: z.string().optional(),
});

const param = (description: string) => z.string().optional().describe(description);

export const tokenRequest = z.looseObject({
  grant_type: param('`authorization_code` or `refresh_token`.'),
  code: param('authorization_code: the code from the redirect.'),
  redirect_uri: param('authorization_code: the redirect URI of the authorization request, exactly.'),
  code_verifier: param('authorization_code: the PKCE verifier (S256).'),
  refresh_token: param('refresh_token: the refresh token; it is spent and a new one returned.'),
  scope: param('Optional: narrow the token to these of the granted scopes.'),
  client_id: param('A public client, or client_secret_post.'),
  client_secret: param('client_secret_post only.'),
});

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.int(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});

export const revocationRequest = z.looseObject({
  token: param('The access or refresh token to revoke (a refresh token ends its whole grant).'),
  token_type_hint: param('`access_token` or `refresh_token`; a hint only.'),
  client_id: param('The client, when it identifies itself in the body.'),
  client_secret: param('client_secret_post only.'),
});

export const oauthError = z.object({
  error: z.string().describe('The RFC error code (RFC 6749 §5.2, RFC 7591 §3.2.2).'),
  error_description: z.string(),
});

// Every parameter optional to the parser: once the client and its redirect URI are known, a missing
// one goes back to the client as invalid_request (RFC 6749 §4.1.2.1), not to the person as a 400.
export const authorizeQuery = z.looseObject({
  client_id: param('Required.'),
  redirect_uri: param('Required; exactly a registered one.'),
  code_challenge: param('Required; BASE64URL(SHA-256(code_verifier)).'),
  response_type: param('Required; `code`.'),
  code_challenge_method: param('Required; `S256`.'),
  scope: param('Space-separated API key scopes; without it, those the client registered.'),
  state: param('Returned to the client unchanged.'),
});

export const approveRequest = z.strictObject({
  client_id: z.string(),
  redirect_uri: z.string(),
  response_type: z.string().describe('`code`'),
  code_challenge: z.string(),
  code_challenge_method: z.string().describe('`S256`'),
  scope: z.string().optional(),
  state: z.string().max(2000).optional(),
});

export const redirectResponse = z.object({
  redirect_to: z
    .string()
    .describe('Where the dashboard sends the browser: the client redirect URI with the response.'),
});

export const redirectableError = z.object({
  error: z.string(),
  redirect_to: z
    .string()
    .optional()
    .describe(
      'Present when the error goes back to the client: its redirect URI carrying `error`, `state` and `iss`.',
    ),
  details: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe('On a request that does not parse: each field at fault.'),
});

export const consentContext = z.object({
  client: z.object({
    client_id: z.string(),
    client_name: z.string().nullable(),
    software_id: z.string().nullable(),
    software_version: z.string().nullable(),
  }),
  redirect_uri: z.string(),
  scopes: z.array(z.string()),
  scope: z.string(),
  state: z.string().optional(),
  project: z.object({ id: z.string(), name: z.string(), status: z.string() }),
  organization_id: z.string(),
  user: z.object({ id: z.string(), email: z.string() }),
});

export const grantView = z.object({
  id: z.string(),
  client: z.object({ client_id: z.string(), client_name: z.string().nullable() }),
  user_id: z.string(),
  project_id: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

export const grantList = z.object({ data: z.array(grantView) });

export const grantParams = z.strictObject({ id: z.string().min(1).max(64) });
