/** HTTP of `/v1/inbound` (spec §4.4): parse, authorize, call the inbound service, shape the reply. */
import { hasScope } from '../platform/http/app.js';
import { forbidden } from '../platform/http/errors.js';
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import {
  idParams,
  inboundList,
  inboundMessage,
  listQuery,
  replyHeaders,
  replyRequest,
  replyResponse,
  routeCreateRequest,
  routeList,
  routeRecord,
  threadQuery,
  threadRecord,
} from './schemas.js';
import { type InboundService, replyKeyOf } from './service.js';

const TAG = 'Inbound';

/** RFC 6266 / RFC 8187: an ASCII fallback plus the exact UTF-8 name. */
function contentDisposition(filename: string | null): string {
  if (!filename) return 'attachment';
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function inboundRoutes(inbound: InboundService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/inbound/routes',
      summary: 'List inbound routes',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:read',
      responses: { 200: { description: 'Every route of the project.', schema: routeList } },
      handler: async (req) => ({
        status: 200,
        body: await inbound.listRoutes(requireKey(req.principal).projectId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/inbound/routes',
      summary: 'Receive mail for an address (or every address) of a verified domain',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:write',
      body: routeCreateRequest,
      responses: {
        201: { description: 'The route.', schema: routeRecord },
        403: { description: 'The domain is not verified.' },
        404: { description: 'The project has no such domain.' },
        409: { description: 'A route for this address already exists.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await inbound.createRoute(requireKey(req.principal).projectId, req.body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/inbound/routes/{id}',
      summary: 'Stop receiving mail for a route',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:write',
      params: idParams,
      responses: {
        204: { description: 'Route disabled and removed.' },
        404: { description: 'No such route.' },
      },
      handler: async (req) => {
        await inbound.deleteRoute(requireKey(req.principal).projectId, req.params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/inbound/emails',
      summary: 'List received emails, newest first',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:read',
      query: listQuery,
      responses: { 200: { description: 'One page of received emails.', schema: inboundList } },
      handler: async (req) => ({
        status: 200,
        body: await inbound.listEmails(requireKey(req.principal).projectId, req.query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/inbound/emails/{id}',
      summary: 'A received email with its authentication results, attachments and thread',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:read',
      params: idParams,
      responses: {
        200: { description: 'The email.', schema: inboundMessage },
        404: { description: 'No such email.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await inbound.getEmail(requireKey(req.principal).projectId, req.params.id),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/inbound/emails/{id}/reply',
      summary: 'Reply to a received email, in its thread',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:write',
      params: idParams,
      body: replyRequest,
      requestHeaders: replyHeaders,
      responses: {
        202: {
          description: 'Reply queued; a repeated Idempotency-Key returns the first reply.',
          schema: replyResponse,
        },
        403: { description: 'Missing `emails:send`, or the sender domain is not verified.' },
        404: { description: 'No such email.' },
        422: { description: 'The sender of the email is suppressed.' },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        const key = replyKeyOf(req.headers['idempotency-key']);
        if (!hasScope(principal, 'emails:send'))
          throw forbidden('This API key lacks the "emails:send" scope needed to reply.');
        const result = await inbound.reply(principal, req.params.id, key, req.body);
        return {
          status: 202,
          body: result.body,
          ...(result.created ? {} : { headers: { 'Idempotent-Replayed': 'true' } }),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/inbound/attachments/{id}/download',
      summary: 'Download an attachment that ClamAV found clean',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:read',
      params: idParams,
      responses: {
        200: { description: 'The attachment bytes.', contentType: 'application/octet-stream' },
        404: { description: 'Unsafe (infected), not yet scanned, unscannable, or absent.' },
      },
      handler: async (req) => {
        const file = await inbound.download(requireKey(req.principal).projectId, req.params.id);
        return {
          status: 200,
          headers: {
            'Content-Disposition': contentDisposition(file.filename),
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'private, no-store',
          },
          raw: { contentType: file.contentType, data: file.content },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/inbound/threads/{id}',
      summary: 'A thread: received and sent messages, oldest first, one page at a time',
      tag: TAG,
      auth: 'key',
      scope: 'inbound:read',
      params: idParams,
      query: threadQuery,
      responses: {
        200: {
          description:
            'The thread with one page of its messages: received mail, and the sent messages of the calling key’s mode (test or live).',
          schema: threadRecord,
        },
        400: {
          description:
            '`after` is not a message of this thread (a sent message of the other key mode included), or `limit` is out of range.',
        },
        404: { description: 'No such thread.' },
      },
      handler: async (req) => ({
        status: 200,
        body: await inbound.getThread(requireKey(req.principal), req.params.id, req.query),
      }),
    }),
  ];
}
