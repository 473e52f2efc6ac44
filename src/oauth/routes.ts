/**
 * HTTP of the OAuth 2.1 authorization server (spec §4.7, no `/v1` prefix, §9): discovery,
 * registration, token and revocation. These answer in the RFCs' forms (respond.ts), not the
 * `{"error": "..."}` of the rest of the API. The consent and connected-apps routes, which a
 * dashboard session calls, are dashboard-routes.ts.
 */
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './actions/discovery.js';
import type { OAuth } from './build.js';
import { answering, NO_STORE, renderAs } from './respond.js';
import {
  oauthError,
  registrationRequest,
  registrationResponse,
  revocationRequest,
  tokenRequest,
  tokenResponse,
} from './schemas.js';

const TAG = 'OAuth';

export function oauthRoutes(oauth: OAuth): RouteSpec[] {
  const metadata = authorizationServerMetadata(oauth.endpoints);
  const resource = protectedResourceMetadata(oauth.endpoints);
  const error = (description: string) => ({ description, schema: oauthError });
  return [
    defineRoute({
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      summary: 'Authorization server metadata (RFC 8414)',
      tag: TAG,
      auth: 'none',
      responses: { 200: { description: 'Endpoints, scopes, PKCE methods (S256 only).' } },
      handler: () => ({ status: 200, body: metadata }),
    }),
    defineRoute({
      method: 'get',
      path: '/.well-known/oauth-protected-resource',
      summary: 'Protected resource metadata of the API (RFC 9728): which authorization server it trusts',
      tag: TAG,
      auth: 'none',
      responses: { 200: { description: 'The resource, its authorization server and scopes.' } },
      handler: () => ({ status: 200, body: resource }),
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/register',
      summary: 'Register a client (RFC 7591); a confidential client’s secret is shown once',
      tag: TAG,
      auth: 'none',
      body: registrationRequest,
      renderError: renderAs('registration'),
      responses: {
        201: {
          description: 'The registered metadata with client_id (and client_secret).',
          schema: registrationResponse,
        },
        400: error('`invalid_redirect_uri` or `invalid_client_metadata`.'),
        429: error('Too many registrations from this address; see Retry-After.'),
      },
      handler: (req) =>
        answering(async () => ({
          status: 201,
          headers: NO_STORE,
          body: await oauth.register(req.body, req.ctx.ip || null),
        })),
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/token',
      summary: 'Exchange an authorization code (PKCE S256), or a refresh token (rotated), for tokens',
      tag: TAG,
      auth: 'none',
      form: true,
      body: tokenRequest,
      renderError: renderAs('token'),
      responses: {
        200: { description: 'The tokens (`pho_...`, `phr_...`); never cached.', schema: tokenResponse },
        400: error(
          '`invalid_request`, `invalid_grant`, `invalid_scope`, `unsupported_grant_type`, `unauthorized_client`.',
        ),
        401: error('`invalid_client`; with `WWW-Authenticate: Basic` when HTTP Basic was used.'),
      },
      handler: (req) =>
        answering(async () => ({
          status: 200,
          headers: NO_STORE,
          body: await oauth.token({ ...req.body, authorization: req.ctx.get('Authorization') || undefined }),
        })),
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/revoke',
      summary: 'Revoke a token (RFC 7009): always 200, whether or not it existed',
      tag: TAG,
      auth: 'none',
      form: true,
      body: revocationRequest,
      renderError: renderAs('token'),
      responses: {
        200: {
          description: 'Revoked if it was a live token of the caller; the answer is the same either way.',
        },
        400: error('`invalid_request`: no token.'),
        401: error('`invalid_client`: client credentials sent and wrong.'),
      },
      handler: (req) =>
        answering(async () => {
          await oauth.revoke({ ...req.body, authorization: req.ctx.get('Authorization') || undefined });
          return { status: 200, headers: NO_STORE, body: {} };
        }),
    }),
  ];
}
