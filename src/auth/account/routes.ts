/**
 * `/v1/dashboard/account/...`: a signed-in person sets their password and enrols an authenticator
 * (not in the spec; named by the accounts issue, documented here like every route).
 */
import { defineRoute, type RouteSpec } from '../../platform/http/route.js';
import { requireSession, type SessionPrincipal } from '../../platform/http/principal.js';
import { unauthorized } from '../bearer.js';
import {
  changePasswordBody,
  recoveryCodes,
  totpConfirmBody,
  totpDisableBody,
  totpEnrolment,
} from '../login/schemas.js';
import type { UserService } from '../users/service.js';

const TAG = 'Account';

export function accountRoutes(users: UserService): RouteSpec[] {
  const me = async (principal: SessionPrincipal) => {
    const user = await users.findById(principal.userId);
    if (!user) throw unauthorized('Invalid session token.');
    return user;
  };
  return [
    defineRoute({
      method: 'put',
      path: '/v1/dashboard/account/password',
      summary: "Set or change the signed-in person's password",
      description: '`current_password` is required once the account has a password (403 when it is wrong).',
      tag: TAG,
      auth: 'session',
      body: changePasswordBody,
      responses: {
        204: { description: 'Password set.' },
        403: { description: 'current_password is wrong.' },
      },
      handler: async (req) => {
        const user = await me(requireSession(req.principal));
        await users.changePassword(user, req.body.password, req.body.current_password);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/totp',
      summary: 'Start enrolling an authenticator app (RFC 6238)',
      description:
        'The secret stays pending until `POST /v1/dashboard/account/totp/confirm` receives a first code.',
      tag: TAG,
      auth: 'session',
      responses: {
        201: { description: 'A pending secret.', schema: totpEnrolment },
        409: { description: 'Two-factor authentication is already on.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await users.startTotp(await me(requireSession(req.principal))),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/account/totp/confirm',
      summary: 'Confirm the authenticator with a first code; two-factor is on from now',
      tag: TAG,
      auth: 'session',
      body: totpConfirmBody,
      responses: {
        200: { description: 'On; the recovery codes, shown once.', schema: recoveryCodes },
        403: { description: 'The code is not the current one.' },
        404: { description: 'No enrolment pending.' },
      },
      handler: async (req) => {
        const codes = await users.confirmTotp(await me(requireSession(req.principal)), req.body.code);
        return { status: 200, body: { recovery_codes: codes } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/account/totp',
      summary: 'Turn two-factor authentication off',
      tag: TAG,
      auth: 'session',
      body: totpDisableBody,
      responses: {
        204: { description: 'Off; the recovery codes are void.' },
        403: { description: 'The code is neither current nor an unused recovery code.' },
        404: { description: 'Two-factor authentication is not on.' },
      },
      handler: async (req) => {
        await users.disableTotp(await me(requireSession(req.principal)), req.body.code);
        return { status: 204 };
      },
    }),
  ];
}
