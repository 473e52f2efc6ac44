/**
 * `/v1/dashboard/organization/security`: an owner requires two-factor authentication of the
 * organization's owners and admins (ASVS 4.3.1), as GitHub's and Postmark's "require 2FA" do.
 * While it is on, an owner or admin without an authenticator keeps their role and can sign in,
 * turn one on and do what any developer may, but every administrative action (members, the audit
 * log, reputation providers, this setting) is a 403 saying what to do (permissions.ts). Turning it
 * on needs the owner's own authenticator on, so no one locks the organization out by mistake.
 */
import { z } from 'zod';
import type { AuditService } from '../audit/service.js';
import { conflict } from '../platform/http/errors.js';
import { requireSession, type SessionPrincipal } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { can, requirePermission, rolesNote } from './permissions.js';
import type { MemberStore } from './store.js';

const TAG = 'Organization members';

const setting = z.object({
  require_two_factor_for_admins: z
    .boolean()
    .describe('Owners and admins need an authenticator on before any administrative action.'),
  required_since: z.string().nullable().describe('When an owner turned the requirement on.'),
  admins_without_two_factor: z
    .array(z.object({ id: z.string(), email: z.string(), role: z.enum(['owner', 'admin']) }))
    .optional()
    .describe('Owners and admins who have no authenticator on (shown to owners only).'),
});

const settingBody = z.strictObject({
  require_two_factor_for_admins: z.boolean({ error: 'must be true or false' }),
});

export function createTwoFactorPolicy(store: MemberStore, audit: AuditService) {
  const view = async (principal: SessionPrincipal) => {
    const at = await store.twoFactorRequiredAt(principal.organizationId);
    const missing = can(principal.role, 'security:manage')
      ? {
          admins_without_two_factor: (await store.adminsWithoutTotp(principal.organizationId)).map((m) => ({
            id: m.id,
            email: m.email,
            role: m.role as 'owner' | 'admin',
          })),
        }
      : {};
    return {
      require_two_factor_for_admins: at !== null,
      required_since: at === null ? null : new Date(at).toISOString(),
      ...missing,
    };
  };
  return {
    view: async (principal: SessionPrincipal) => {
      requirePermission(principal, 'members:read');
      return view(principal);
    },
    async set(principal: SessionPrincipal, required: boolean, hasOwnTotp: boolean) {
      requirePermission(principal, 'security:manage');
      const at = await store.twoFactorRequiredAt(principal.organizationId);
      if (required && !hasOwnTotp)
        throw conflict(
          'Turn on an authenticator for your own account first (POST /v1/dashboard/account/totp): the requirement applies to you too.',
        );
      if (required !== (at !== null)) {
        await store.setTwoFactorRequired(principal.organizationId, required ? Date.now() : null);
        await audit.record({
          action: 'organization.two_factor_requirement',
          target: principal.organizationId,
          details: { required },
        });
      }
      return view(principal);
    },
  };
}

export type TwoFactorPolicy = ReturnType<typeof createTwoFactorPolicy>;

export function twoFactorRoutes(
  policy: TwoFactorPolicy,
  hasTotp: (userId: string) => Promise<boolean>,
): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/organization/security',
      summary: "The organization's security settings: two-factor required of owners and admins",
      description: `${rolesNote('members:read')} \`admins_without_two_factor\` is shown to owners only.`,
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The settings.', schema: setting } },
      handler: async (req) => ({ status: 200, body: await policy.view(requireSession(req.principal)) }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/dashboard/organization/security',
      summary: 'Require (or stop requiring) two-factor authentication of owners and admins',
      description: `${rolesNote('security:manage')} While it is on, an owner or admin without an authenticator gets a 403 on every administrative action (members, audit log, reputation providers, this setting) until they turn one on; everything a developer may do stays open to them. Turning it on needs your own authenticator on (409 otherwise).`,
      tag: TAG,
      auth: 'session',
      body: settingBody,
      responses: {
        200: { description: 'The settings now.', schema: setting },
        403: { description: 'Only owners change it (and, while it is on, only with an authenticator).' },
        409: { description: 'Your own account has no authenticator on.' },
      },
      handler: async (req) => {
        const session = requireSession(req.principal);
        return {
          status: 200,
          body: await policy.set(
            session,
            req.body.require_two_factor_for_admins,
            await hasTotp(session.userId),
          ),
        };
      },
    }),
  ];
}
