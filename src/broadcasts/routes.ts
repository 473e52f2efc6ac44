/** `/v1/broadcasts` (spec §3.2, §4.4): drafts, scheduling, cancelling, progress. */
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import {
  broadcastList,
  broadcastRecord,
  broadcastRequest,
  broadcastUpdate,
  idParams,
  listQuery,
  scheduleRequest,
} from './schemas.js';
import type { BroadcastService } from './service.js';

const TAG = 'Broadcasts';
const READ = 'broadcasts:read';
const WRITE = 'broadcasts:write';
const notFound = { description: 'No broadcast with this ID (of this key mode) in the project.' };

export function broadcastRoutes(broadcasts: BroadcastService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/broadcasts',
      summary: 'List broadcasts, newest first',
      tag: TAG,
      auth: 'key',
      scope: READ,
      query: listQuery,
      responses: { 200: { description: 'One page of broadcasts.', schema: broadcastList } },
      handler: async (req) => ({
        status: 200,
        body: await broadcasts.list(requireKey(req.principal), req.query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/broadcasts',
      summary: 'Create a broadcast draft',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      body: broadcastRequest,
      responses: {
        201: { description: 'The draft.', schema: broadcastRecord },
        403: { description: 'The sender domain is not a verified domain of the project.' },
        404: { description: 'No such audience in the project.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await broadcasts.create(requireKey(req.principal), req.body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/broadcasts/{id}',
      summary: 'Get a broadcast with its progress',
      tag: TAG,
      auth: 'key',
      scope: READ,
      params: idParams,
      responses: {
        200: { description: 'The broadcast and its progress.', schema: broadcastRecord },
        404: notFound,
      },
      handler: async (req) => ({
        status: 200,
        body: await broadcasts.get(requireKey(req.principal), req.params.id),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/broadcasts/{id}',
      summary: 'Change a draft',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      body: broadcastUpdate,
      responses: {
        200: { description: 'The draft.', schema: broadcastRecord },
        404: notFound,
        409: { description: 'The broadcast is no longer a draft.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await broadcasts.update(requireKey(req.principal), req.params.id, req.body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/broadcasts/{id}/schedule',
      summary: 'Send a draft now (no body) or at send_at, up to 30 days ahead',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      body: scheduleRequest,
      optionalBody: true,
      responses: {
        202: {
          description: 'Scheduled: it goes to the subscribed contacts on the marketing queue.',
          schema: broadcastRecord,
        },
        403: { description: 'The sender domain is no longer verified.' },
        404: notFound,
        409: { description: 'The broadcast is sending, sent, failed or cancelled.' },
      },
      handler: async (req) => ({
        status: 202,
        body: await broadcasts.schedule(requireKey(req.principal), req.params.id, req.body.send_at),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/broadcasts/{id}/cancel',
      summary: 'Cancel a draft, scheduled or sending broadcast',
      tag: TAG,
      auth: 'key',
      scope: WRITE,
      params: idParams,
      responses: {
        204: { description: 'Cancelled: nothing more is queued.' },
        404: notFound,
        409: { description: 'The broadcast has finished sending, failed, or is already cancelled.' },
      },
      handler: async (req) => {
        await broadcasts.cancel(requireKey(req.principal), req.params.id);
        return { status: 204 };
      },
    }),
  ];
}
