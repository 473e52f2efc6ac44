/** `/v1/auth/...`: sign in by code or password, read the session, sign out (spec §4.6). */
import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { requireSession } from '../../platform/http/principal.js';
import type { AuditService } from '../../audit/service.js';
import type { SessionService } from '../session/service.js';
import {
  codeAccepted,
  loginSuccess,
  passwordLoginBody,
  requestCodeBody,
  sessionSchema,
  verifyCodeBody,
} from './schemas.js';
import { CODE_LIFETIME_S, type Client, type LoginService } from './service.js';

const TAG = 'Sign-in and session';

export function clientOf(ctx: Context): Client {
  return { ip: ctx.ip || null, userAgent: ctx.get('User-Agent') || null };
}

const limited = {
  429: { description: 'Too many sign-in requests for this address or from this client; see Retry-After.' },
};

export function loginRoutes(login: LoginService, sessions: SessionService, audit: AuditService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/request-code',
      summary: 'Mail a six-digit sign-in code',
      description:
        'Answers 202 for every well-formed address, known or not; only a known account gets a mail, in `locale`. A new request replaces the previous code. The code works once, for 600 s, and at most 5 wrong tries.',
      tag: TAG,
      auth: 'none',
      body: requestCodeBody,
      responses: { 202: { description: 'Accepted.', schema: codeAccepted }, ...limited },
      handler: (req) => {
        login.requestCode(req.body.email, req.body.locale, clientOf(req.ctx));
        return { status: 202, body: { ok: true, expires_in: CODE_LIFETIME_S } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/verify-code',
      summary: 'Exchange a sign-in code for a session',
      tag: TAG,
      auth: 'none',
      body: verifyCodeBody,
      responses: {
        200: { description: 'Signed in.', schema: loginSuccess },
        401: { description: 'Wrong, expired or used code, or the authenticator code missing or wrong.' },
        ...limited,
      },
      handler: async (req) => ({ status: 200, body: await login.verifyCode(req.body, clientOf(req.ctx)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/login-password',
      summary: 'Sign in with a password',
      tag: TAG,
      auth: 'none',
      body: passwordLoginBody,
      responses: {
        200: { description: 'Signed in.', schema: loginSuccess },
        401: { description: 'Wrong email or password, or the authenticator code missing or wrong.' },
        ...limited,
      },
      handler: async (req) => ({ status: 200, body: await login.loginPassword(req.body, clientOf(req.ctx)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/auth/session',
      summary: 'The current session',
      description:
        'With `X-Posthorn-Project-ID`, `project_id` and `project_status` are those of the selected project.',
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The session.', schema: sessionSchema } },
      handler: async (req) => ({ status: 200, body: await sessions.describe(requireSession(req.principal)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/logout',
      summary: 'Sign out: the session token stops working at once',
      tag: TAG,
      auth: 'session',
      responses: { 204: { description: 'Signed out.' } },
      handler: async (req) => {
        const session = requireSession(req.principal);
        await sessions.revoke(session.sessionId);
        await audit.record({ action: 'auth.logout', target: session.sessionId });
        return { status: 204 };
      },
    }),
  ];
}
