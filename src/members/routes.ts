/** `/v1/dashboard/organization/members` (spec §4.8): the organization's members and their roles. */
import { z } from 'zod';
import { accountEmail } from '../auth/login/schemas.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { localeFrom } from './invitation.js';
import { rolesNote, ROLES } from './permissions.js';
import type { MemberService } from './service.js';

const TAG = 'Organization members';

const role = z
  .enum(ROLES as ['owner', 'admin', 'developer', 'analyst', 'billing'], {
    error: `must be one of ${ROLES.join(', ')}`,
  })
  .describe(
    'owner: everything, including owners and billing; admin: members (not owners), keys, messages, audit log, billing view; developer: keys, sending, messages; analyst: messages; billing: billing.',
  );

const member = z.object({
  id: z.string(),
  user_id: z.string(),
  email: z.string(),
  role,
  created_at: z.string(),
});

const idParams = z.strictObject({ id: z.string().min(1).max(64) });
const ownerNote =
  ' Only an owner may grant the owner role, change an owner or remove one; the last owner stays.';

export function memberRoutes(members: MemberService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/organization/members',
      summary: 'Members of the organization and their roles',
      description: rolesNote('members:read'),
      tag: TAG,
      auth: 'session',
      responses: {
        200: { description: 'The members, oldest first.', schema: z.object({ data: z.array(member) }) },
      },
      handler: async (req) => ({
        status: 200,
        body: { data: await members.list(requireSession(req.principal)) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/organization/members',
      summary: 'Add a member; a person without an account gets one and an invitation mail',
      description: `${rolesNote('members:manage')}${ownerNote} The invitation is written in the first of the eleven locales the request's Accept-Language names (else en).`,
      tag: TAG,
      auth: 'session',
      body: z.strictObject({ email: accountEmail, role }),
      responses: {
        201: { description: 'Added.', schema: member },
        403: { description: 'The role may not manage members, or the owner rule.' },
        409: { description: 'Already a member.' },
      },
      handler: async (req) => {
        const locale = localeFrom(req.ctx.get('Accept-Language') || undefined);
        return { status: 201, body: await members.add(requireSession(req.principal), req.body, locale) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/dashboard/organization/members/{id}',
      summary: "Change a member's role",
      description: `${rolesNote('members:manage')}${ownerNote}`,
      tag: TAG,
      auth: 'session',
      params: idParams,
      body: z.strictObject({ role }),
      responses: {
        204: { description: 'Changed.' },
        403: { description: 'The role may not manage members, or the owner rule.' },
        404: { description: 'No such member in this organization.' },
        409: { description: 'That would leave the organization without an owner.' },
      },
      handler: async (req) => {
        await members.changeRole(requireSession(req.principal), req.params.id, req.body.role);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/dashboard/organization/members/{id}',
      summary: 'Remove a member; their sessions end at once',
      description: `${rolesNote('members:manage')}${ownerNote}`,
      tag: TAG,
      auth: 'session',
      params: idParams,
      responses: {
        204: { description: 'Removed.' },
        403: { description: 'The role may not manage members, or the owner rule.' },
        404: { description: 'No such member in this organization.' },
        409: { description: 'That would leave the organization without an owner.' },
      },
      handler: async (req) => {
        await members.remove(requireSession(req.principal), req.params.id);
        return { status: 204 };
      },
    }),
  ];
}
