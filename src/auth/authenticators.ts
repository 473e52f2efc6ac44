/**
 * The HTTP app's authenticators, one per auth kind a route may declare (spec §5): API-key routes
 * (K) take `ph_live_`/`ph_test_` keys and refuse session tokens; session routes (S) take `phs_`
 * tokens and refuse keys, each with a 401 that says which credential the route wants.
 *
 * Seams for what builds on this:
 * - OAuth access tokens (`pho_...`) act as scoped keys on K routes: `key` hands a token of kind
 *   `oauth_access` to `options.oauthAccess` (the OAuth service's), which returns a KeyPrincipal
 *   limited to the grant; without it such a token is an invalid key.
 * - The web dashboard keeps the session token in an HttpOnly cookie (src/web/): `cookie` reads it
 *   (after its CSRF checks) when no Authorization header is sent. On session routes it is the
 *   session; on API-key routes it acts as the member (`asKey`: the selected project, the role's
 *   scopes). A Bearer session token on an API-key route stays a 401.
 */
import type { Authenticator } from '../platform/http/app.js';
import type { AuthKind } from '../platform/http/route.js';
import type { Services } from '../services.js';
import type { KeyPrincipal, SessionPrincipal } from '../platform/http/principal.js';
import { bearerToken, type CookieTokenReader, sessionTokenOf, tokenKind, unauthorized } from './bearer.js';

export interface AuthenticatorOptions {
  /** The dashboard's session cookie, read when a request has no Authorization header. */
  readonly cookie?: CookieTokenReader;
  /** What a cookie session is on an API-key route (the dashboard's member principal). */
  readonly asKey?: (session: SessionPrincipal) => KeyPrincipal;
  /**
   * Turns an OAuth access token (`pho_...`) into the key principal it acts as on K routes (its
   * project, mode and granted scopes), or throws a 401.
   */
  readonly oauthAccess?: (token: string) => Promise<KeyPrincipal>;
}

export const PROJECT_HEADER = 'X-Posthorn-Project-ID';

export function createAuthenticators(
  services: Services,
  options: AuthenticatorOptions = {},
): Partial<Record<AuthKind, Authenticator>> {
  return {
    key: (ctx) => {
      const header = ctx.get('Authorization') || undefined;
      const token = bearerToken(header);
      if (token === undefined && options.cookie && options.asKey) {
        const fromCookie = options.cookie.token(ctx);
        const asKey = options.asKey;
        if (fromCookie !== undefined)
          return services.accounts.sessions
            .authenticate(fromCookie, ctx.get(PROJECT_HEADER) || undefined)
            .then((session) => asKey(session));
      }
      const kind = token === undefined ? undefined : tokenKind(token);
      if (kind === 'session')
        throw unauthorized(
          'This route takes an API key (`ph_live_...` or `ph_test_...`); a dashboard session token works only on dashboard routes.',
        );
      if (kind === 'oauth_access' && token !== undefined && options.oauthAccess)
        return options.oauthAccess(token);
      return services.keys.authenticate(header);
    },
    session: (ctx) => {
      const token = sessionTokenOf(ctx, options.cookie);
      if (token !== undefined && tokenKind(token) !== 'session')
        throw unauthorized(
          'This route takes a dashboard session token (`phs_...` from /v1/auth/verify-code or /v1/auth/login-password), not an API key.',
        );
      return services.accounts.sessions.authenticate(token, ctx.get(PROJECT_HEADER) || undefined);
    },
  };
}
