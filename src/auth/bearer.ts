/**
 * Bearer credentials and what kind each is, by its prefix (DESIGN.md §4): API keys `ph_live_` /
 * `ph_test_`, dashboard sessions `phs_`, OAuth access tokens `pho_`. Each authenticator accepts
 * its own kinds only, so a session is a 401 on API-key routes and a key a 401 on session routes.
 */
import type { Context } from 'koa';
import { AppError } from '../platform/http/errors.js';

export type TokenKind = 'api_key' | 'session' | 'oauth_access' | 'unknown';

export function tokenKind(token: string): TokenKind {
  if (token.startsWith('ph_live_') || token.startsWith('ph_test_')) return 'api_key';
  if (token.startsWith('phs_')) return 'session';
  if (token.startsWith('pho_')) return 'oauth_access';
  return 'unknown';
}

export const unauthorized = (message: string) =>
  new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** The token of `Authorization: Bearer <token>`, undefined without the header; a 401 when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Malformed Authorization header: expected `Bearer <token>`.');
  return match[1] as string;
}

/**
 * The session token of a request: the bearer token, or, without an Authorization header, the one
 * `cookie` reads (the web dashboard's HttpOnly cookie, after its CSRF checks: src/web/).
 */
export function sessionTokenOf(ctx: Context, cookie: CookieTokenReader | undefined): string | undefined {
  const bearer = bearerToken(ctx.get('Authorization') || undefined);
  if (bearer !== undefined) return bearer;
  return cookie?.token(ctx);
}

/** Reads a session token from a cookie; throws (403) when a state-changing request fails CSRF checks. */
export interface CookieTokenReader {
  token(ctx: Context): string | undefined;
}
