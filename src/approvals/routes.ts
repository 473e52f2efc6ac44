/** `/v1/dashboard/send-approvals` (spec §4.8): agent sends awaiting a member, and the project's policy. */
import { rolesNote } from '../members/permissions.js';
import { requireSession } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import {
  approvalList,
  approvalParams,
  approvalView,
  listQuery,
  policyBody,
  rejectRequest,
} from './schemas.js';
import type { ApprovalService } from './service.js';

const TAG = 'Send approvals';

export function approvalRoutes(approvals: ApprovalService): RouteSpec[] {
  return [
    // Before `{id}`: the router takes the first route that matches.
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/send-approvals/policy',
      summary: 'Whether sends by OAuth clients wait for approval, and the clients trusted without',
      tag: TAG,
      auth: 'session',
      responses: { 200: { description: 'The policy of the selected project.', schema: policyBody } },
      handler: async (req) => {
        const policy = await approvals.policy(requireSession(req.principal));
        return {
          status: 200,
          body: { require_approval: policy.requireApproval, trusted_clients: policy.trustedClients },
        };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/dashboard/send-approvals/policy',
      summary: 'Set the approval policy of the selected project',
      description: `Sends already held keep waiting for a decision. ${rolesNote('api_keys:manage')}`,
      tag: TAG,
      auth: 'session',
      body: policyBody,
      responses: { 200: { description: 'The policy now.', schema: policyBody } },
      handler: async (req) => {
        const policy = await approvals.setPolicy(requireSession(req.principal), {
          requireApproval: req.body.require_approval,
          trustedClients: req.body.trusted_clients,
        });
        return {
          status: 200,
          body: { require_approval: policy.requireApproval, trusted_clients: policy.trustedClients },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/send-approvals',
      summary: 'Agent sends awaiting approval, with what each will send',
      description: `Sends made with OAuth access tokens, newest first. ${rolesNote('messages:read')}`,
      tag: TAG,
      auth: 'session',
      query: listQuery,
      responses: { 200: { description: 'A page of approvals.', schema: approvalList } },
      handler: async (req) => {
        const { status, limit, after } = req.query;
        const page = await approvals.list(requireSession(req.principal), {
          status: status === 'all' ? undefined : status,
          limit,
          after,
        });
        return { status: 200, body: page };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/dashboard/send-approvals/{id}',
      summary: 'One send approval',
      description: rolesNote('messages:read'),
      tag: TAG,
      auth: 'session',
      params: approvalParams,
      responses: {
        200: { description: 'The approval.', schema: approvalView },
        404: { description: 'Not in this project.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await approvals.get(requireSession(req.principal), req.params.id),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/send-approvals/{id}/approve',
      summary: 'Approve: the message is queued exactly as a send is',
      description: `The checks of a send run again now (suspended project 403, sender 403, suppressed recipient 422), and a refusal changes nothing. ${rolesNote('emails:send')}`,
      tag: TAG,
      auth: 'session',
      params: approvalParams,
      responses: {
        202: { description: 'Approved and queued (or scheduled).', schema: approvalView },
        403: {
          description: 'The role may not approve, the project is suspended, or the sender is not allowed.',
        },
        404: { description: 'Not in this project.' },
        409: { description: 'Already rejected or expired.' },
        422: { description: 'A recipient is on the suppression list now.' },
      },
      handler: async (req) => ({
        status: 202,
        body: await approvals.approve(requireSession(req.principal), req.params.id),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/dashboard/send-approvals/{id}/reject',
      summary: 'Reject, with an optional note: the message is `rejected`, an `email.rejected` event is sent',
      description: rolesNote('emails:send'),
      tag: TAG,
      auth: 'session',
      params: approvalParams,
      body: rejectRequest,
      optionalBody: true,
      responses: {
        204: { description: 'Rejected.' },
        404: { description: 'Not in this project.' },
        409: { description: 'Already approved or expired.' },
      },
      handler: async (req) => {
        await approvals.reject(requireSession(req.principal), req.params.id, req.body.note ?? null);
        return { status: 204 };
      },
    }),
  ];
}
