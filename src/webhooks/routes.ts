/** `/v1/webhooks`: endpoints, secret rotation, the delivery log and replay (spec §4.3, §6). */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteRequest, type RouteSpec } from '../platform/http/route.js';
import {
  attemptDetail,
  attemptList,
  attemptListQuery,
  attemptParams,
  attemptRecord,
  createEndpointRequest,
  endpointList,
  endpointListQuery,
  endpointParams,
  endpointRecord,
  endpointWithSecret,
  rotatedEndpoint,
  updateEndpointRequest,
} from './schemas.js';
import type { Actor, WebhookService } from './service.js';

const TAG = 'Webhooks';

function actorOf(req: RouteRequest<unknown, unknown, unknown>): Actor {
  const key = requireKey(req.principal);
  return {
    projectId: key.projectId,
    mode: key.mode,
    organizationId: key.organizationId,
    name: `key:${key.keyId}`,
  };
}

export function webhookRoutes(webhooks: WebhookService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhooks',
      summary:
        'Create a webhook endpoint of the key’s mode (live or test; its signing secret is shown only in this response)',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:write',
      body: createEndpointRequest,
      responses: { 201: { description: 'The endpoint and its whsec_ secret.', schema: endpointWithSecret } },
      handler: async (req) => ({ status: 201, body: await webhooks.create(actorOf(req), req.body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks',
      summary: 'List the webhook endpoints of the key’s mode (live or test), oldest first (without secrets)',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:read',
      query: endpointListQuery,
      responses: { 200: { description: 'One page of endpoints.', schema: endpointList } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.list(requireKey(req.principal), req.query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}',
      summary: 'Get one webhook endpoint',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:read',
      params: endpointParams,
      responses: { 200: { description: 'The endpoint.', schema: endpointRecord } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.get(requireKey(req.principal), req.params.id),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhooks/{id}',
      summary: 'Change the URL, events or description, or disable / re-enable the endpoint',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:write',
      params: endpointParams,
      body: updateEndpointRequest,
      responses: { 200: { description: 'The updated endpoint.', schema: endpointRecord } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.update(actorOf(req), req.params.id, req.body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/{id}',
      summary: 'Delete a webhook endpoint and its delivery log',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:write',
      params: endpointParams,
      responses: { 204: { description: 'Deleted.' } },
      handler: async (req) => {
        await webhooks.remove(actorOf(req), req.params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/{id}/rotate-secret',
      summary: 'Issue a new signing secret; the previous one keeps signing for webhooks.rotation_overlap',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:write',
      params: endpointParams,
      responses: { 200: { description: 'The endpoint and its new secret.', schema: rotatedEndpoint } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.rotateSecret(actorOf(req), req.params.id),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}/deliveries',
      summary: 'Delivery attempts of an endpoint, newest first, with timing and safe headers',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:read',
      params: endpointParams,
      query: attemptListQuery,
      responses: { 200: { description: 'One page of attempts.', schema: attemptList } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.deliveries(requireKey(req.principal), req.params.id, req.query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}/deliveries/{deliveryId}',
      summary: 'One delivery attempt, with the payload that was sent',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:read',
      params: attemptParams,
      responses: { 200: { description: 'The attempt.', schema: attemptDetail } },
      handler: async (req) => ({
        status: 200,
        body: await webhooks.delivery(requireKey(req.principal), req.params.id, req.params.deliveryId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/{id}/deliveries/{deliveryId}/replay',
      summary: 'Send the original payload again, byte for byte, with a fresh timestamp and signature',
      tag: TAG,
      auth: 'key',
      scope: 'webhooks:write',
      params: attemptParams,
      responses: { 202: { description: 'The new attempt, queued.', schema: attemptRecord } },
      handler: async (req) => ({
        status: 202,
        body: await webhooks.replay(actorOf(req), req.params.id, req.params.deliveryId),
      }),
    }),
  ];
}
