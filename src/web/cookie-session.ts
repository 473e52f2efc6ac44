/**
 * The dashboard's session cookie (spec §5 rule 5: the browser never holds the bearer token in
 * script-readable storage). Sign-in sets two cookies: the session token, `HttpOnly`, and a CSRF
 * token that script may read, both `SameSite=Strict`, `Path=/`, `Secure` (with the `__Host-`
 * prefix) when the public URL is HTTPS. The CSRF token is an HMAC of the session token under a key
 * derived from the master key, so nothing is stored and it dies with the session.
 *
 * A cookie-authenticated request that may change state (any method but GET, HEAD, OPTIONS) must
 * carry the CSRF token in `X-Posthorn-CSRF` (a header a cross-site form cannot send, and a
 * cross-site script cannot send without a CORS preflight Posthorn never grants), and an `Origin`
 * or `Sec-Fetch-Site` that names this site when the browser sends one. Bearer requests are not
 * touched: they carry no ambient credential.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { Context } from 'koa';
import { safeEqual } from '../platform/crypto.js';
import { AppError } from '../platform/http/errors.js';

export const CSRF_HEADER = 'X-Posthorn-CSRF';

export interface CookieSessionOptions {
  readonly masterKey: Buffer;
  readonly publicUrl: string;
  /** Max-Age of the cookies, in seconds: the session's absolute lifetime. */
  readonly maxAgeSeconds: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createCookieSession(options: CookieSessionOptions) {
  const secure = options.publicUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  const sessionName = `${prefix}ph_session`;
  const csrfName = `${prefix}ph_csrf`;
  const publicOrigin = new URL(options.publicUrl).origin;
  const key = Buffer.from(
    hkdfSync('sha256', options.masterKey, Buffer.alloc(0), 'posthorn dashboard csrf v1', 32),
  );
  const csrfOf = (token: string) => createHmac('sha256', key).update(token).digest('base64url');

  const cookie = (name: string, value: string, maxAge: number, httpOnly: boolean) =>
    [
      `${name}=${value}`,
      'Path=/',
      `Max-Age=${maxAge}`,
      'SameSite=Strict',
      ...(httpOnly ? ['HttpOnly'] : []),
      ...(secure ? ['Secure'] : []),
    ].join('; ');

  const readCookie = (ctx: Context, name: string): string | undefined => {
    const header = ctx.get('Cookie');
    if (!header) return undefined;
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
    }
    return undefined;
  };

  const csrfRefused = (why: string) =>
    new AppError('forbidden', `Cross-site request refused: ${why}. Reload the dashboard and try again.`);

  /** The request comes from this site: `Origin` and `Sec-Fetch-Site`, when sent, say so. */
  const checkSameSite = (ctx: Context): void => {
    const site = ctx.get('Sec-Fetch-Site');
    if (site && site !== 'same-origin' && site !== 'none') throw csrfRefused(`Sec-Fetch-Site is ${site}`);
    const origin = ctx.get('Origin');
    // The address the request was sent to (Koa's ctx.origin would echo the Origin header back).
    const own = `${ctx.protocol}://${ctx.host}`;
    if (origin && origin !== publicOrigin && origin !== own)
      throw csrfRefused(`Origin ${origin} is not this dashboard's`);
  };

  return {
    sessionName,
    csrfName,

    /** Set-Cookie values that sign the browser in with `token`. */
    signIn(token: string): string[] {
      return [
        cookie(sessionName, token, options.maxAgeSeconds, true),
        cookie(csrfName, csrfOf(token), options.maxAgeSeconds, false),
      ];
    },

    /** Set-Cookie values that remove both cookies. */
    signOut(): string[] {
      return [cookie(sessionName, '', 0, true), cookie(csrfName, '', 0, false)];
    },

    /**
     * The session token of the request's cookie, or undefined without one. For a method that may
     * change state, a 403 unless the request passes the CSRF checks.
     */
    token(ctx: Context): string | undefined {
      const token = readCookie(ctx, sessionName);
      if (token === undefined) return undefined;
      if (SAFE_METHODS.has(ctx.method)) return token;
      checkSameSite(ctx);
      const sent = ctx.get(CSRF_HEADER);
      if (!sent) throw csrfRefused(`the ${CSRF_HEADER} header is missing`);
      if (!safeEqual(sent, csrfOf(token))) throw csrfRefused(`the ${CSRF_HEADER} header does not match`);
      return token;
    },

    /** Sign-in requests carry no session yet: they must come from this site and name the header. */
    checkSignIn(ctx: Context): void {
      checkSameSite(ctx);
      if (!ctx.get(CSRF_HEADER)) throw csrfRefused(`the ${CSRF_HEADER} header is missing`);
    },
  };
}

export type CookieSession = ReturnType<typeof createCookieSession>;
