/**
 * `/v1/dashboard/web/...`: the web dashboard's sign-in and sign-out. They take the same bodies as
 * `/v1/auth/verify-code` and `/v1/auth/login-password` but answer with the session only and put
 * the token in the HttpOnly cookie (cookie-session.ts), so page script never sees it.
 */
import type { Context } from 'koa';
import type { AuditService } from '../audit/service.js';
import { clientOf } from '../auth/login/routes.js';
import { passwordLoginBody, sessionSchema, verifyCodeBody } from '../auth/login/schemas.js';
import type { LoginService } from '../auth/login/service.js';
import type { SessionService } from '../auth/session/service.js';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { requireSession } from '../platform/http/principal.js';
import { CSRF_HEADER, type CookieSession } from './cookie-session.js';

const TAG = 'Web dashboard';
const signedIn = z.object({ session: sessionSchema });
const csrfHeader = {
  [CSRF_HEADER]: {
    description: 'Any value on sign-in; afterwards the value of the CSRF cookie set at sign-in.',
    required: true,
  },
};

const responses = {
  200: { description: 'Signed in; the session cookie is set.', schema: signedIn },
  401: { description: 'Wrong or expired credentials, or the authenticator code missing or wrong.' },
  403: { description: 'Not sent from the dashboard (CSRF checks).' },
  429: { description: 'Too many sign-in requests for this address or from this client; see Retry-After.' },
};

export function webSessionRoutes(
  login: LoginService,
  sessions: SessionService,
  audit: AuditService,
  cookies: CookieSession,
): RouteSpec[] {
  const setCookies = (ctx: Context, values: string[]) => {
    for (const value of values) ctx.append('Set-Cookie', value);
  };
  const noStore = { 'Cache-Control': 'no-store' };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/web/sign-in/code',
      summary: 'Dashboard sign-in with a mailed code; sets the HttpOnly session cookie',
      description: 'The body of `POST /v1/auth/verify-code`. The token is never in the answer.',
      tag: TAG,
      auth: 'none',
      body: verifyCodeBody,
      requestHeaders: csrfHeader,
      responses,
      handler: async (req) => {
        cookies.checkSignIn(req.ctx);
        const { token, session } = await login.verifyCode(req.body, clientOf(req.ctx));
        setCookies(req.ctx, cookies.signIn(token));
        return { status: 200, body: { session }, headers: noStore };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/web/sign-in/password',
      summary: 'Dashboard sign-in with a password; sets the HttpOnly session cookie',
      description: 'The body of `POST /v1/auth/login-password`. The token is never in the answer.',
      tag: TAG,
      auth: 'none',
      body: passwordLoginBody,
      requestHeaders: csrfHeader,
      responses,
      handler: async (req) => {
        cookies.checkSignIn(req.ctx);
        const { token, session } = await login.loginPassword(req.body, clientOf(req.ctx));
        setCookies(req.ctx, cookies.signIn(token));
        return { status: 200, body: { session }, headers: noStore };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/web/sign-out',
      summary: 'Dashboard sign-out: the session ends and both cookies are removed',
      tag: TAG,
      auth: 'session',
      requestHeaders: csrfHeader,
      responses: { 204: { description: 'Signed out.' } },
      handler: async (req) => {
        const session = requireSession(req.principal);
        await sessions.revoke(session.sessionId);
        await audit.record({ action: 'auth.logout', target: session.sessionId });
        setCookies(req.ctx, cookies.signOut());
        return { status: 204 };
      },
    }),
  ];
}
