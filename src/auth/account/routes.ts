/**
 * `/v1/dashboard/account/...`: a signed-in person sets their password and enrols an authenticator
 * (not in the spec; named by the accounts issue, documented here like every route).
 */
import type { Context } from 'koa';
import { localeFrom } from '../../members/invitation.js';
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { requireSession } from '../../platform/http/principal.js';
import { clientOf } from '../login/routes.js';
import {
  changePasswordBody,
  recoveryCodes,
  totpConfirmBody,
  totpDisableBody,
  totpEnrolment,
} from '../login/schemas.js';
import { totpStartBody } from './schemas.js';
import type { AccountService } from './service.js';

const TAG = 'Account';

const NOTICE =
  " A notice mail goes to the account's address, in the first of the eleven locales the request's Accept-Language names (else en).";

const localeOf = (ctx: Context) => localeFrom(ctx.get('Accept-Language') || undefined);

export function accountRoutes(account: AccountService): RouteSpec[] {
  return [
    defineRoute({
      method: 'put',
      path: '/v1/dashboard/account/password',
      summary: "Set or change the signed-in person's password",
      description: `\`current_password\` is required once the account has a password (403 when it is wrong). A new password is refused (400 naming \`password\`) when it is a common password or easy to guess. Every other session of the person ends; the current one stays (the audit entry counts them; \`GET /v1/dashboard/account/sessions\` shows what is left).${NOTICE}`,
      tag: TAG,
      auth: 'session',
      body: changePasswordBody,
      responses: {
        204: { description: 'Password set; the other sessions ended.' },
        403: { description: 'current_password is wrong.' },
        429: { description: 'Too many credential checks for this address or from this client.' },
      },
      handler: async (req) => {
        await account.changePassword(
          requireSession(req.principal),
          req.body,
          localeOf(req.ctx),
          clientOf(req.ctx),
        );
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/totp',
      summary: 'Start enrolling an authenticator app (RFC 6238)',
      description:
        'Within ten minutes of signing in, the sign-in is the proof and the body may be empty. Later, it needs proof that it is still you: `current_password` when the account has a password, else `email_code` (a code from `POST /v1/auth/request-code`). The secret stays pending until `POST /v1/dashboard/account/totp/confirm` receives a first code.',
      tag: TAG,
      auth: 'session',
      body: totpStartBody,
      optionalBody: true,
      responses: {
        201: { description: 'A pending secret.', schema: totpEnrolment },
        403: { description: 'current_password or email_code is wrong.' },
        409: { description: 'Two-factor authentication is already on.' },
        429: { description: 'Too many credential checks for this address or from this client.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await account.startTotp(requireSession(req.principal), req.body, clientOf(req.ctx)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/totp/confirm',
      summary: 'Confirm the authenticator with a first code; two-factor is on from now',
      description: NOTICE.trim(),
      tag: TAG,
      auth: 'session',
      body: totpConfirmBody,
      responses: {
        200: { description: 'On; the recovery codes, shown once.', schema: recoveryCodes },
        403: { description: 'The code is not the current one.' },
        404: { description: 'No enrolment pending.' },
      },
      handler: async (req) => {
        const codes = await account.confirmTotp(
          requireSession(req.principal),
          req.body.code,
          localeOf(req.ctx),
          clientOf(req.ctx),
        );
        return { status: 200, body: { recovery_codes: codes } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/totp/recovery-codes',
      summary: 'Make new recovery codes; the earlier ones stop working',
      description: `Needs the authenticator's current code.${NOTICE}`,
      tag: TAG,
      auth: 'session',
      body: totpConfirmBody,
      responses: {
        200: { description: 'The new recovery codes, shown once.', schema: recoveryCodes },
        403: { description: 'The code is not the current one.' },
        404: { description: 'Two-factor authentication is not on.' },
        429: { description: 'Too many credential checks for this address or from this client.' },
      },
      handler: async (req) => {
        const codes = await account.regenerateRecoveryCodes(
          requireSession(req.principal),
          req.body.code,
          localeOf(req.ctx),
          clientOf(req.ctx),
        );
        return { status: 200, body: { recovery_codes: codes } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/account/totp',
      summary: 'Turn two-factor authentication off',
      description: `Needs the authenticator's current code or an unused recovery code.${NOTICE}`,
      tag: TAG,
      auth: 'session',
      body: totpDisableBody,
      responses: {
        204: { description: 'Off; the recovery codes are void.' },
        403: { description: 'The code is neither current nor an unused recovery code.' },
        404: { description: 'Two-factor authentication is not on.' },
        429: { description: 'Too many credential checks for this address or from this client.' },
      },
      handler: async (req) => {
        await account.disableTotp(
          requireSession(req.principal),
          req.body.code,
          localeOf(req.ctx),
          clientOf(req.ctx),
        );
        return { status: 204 };
      },
    }),
  ];
}
