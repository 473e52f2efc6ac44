/**
 * HTTP of the send API (spec §4.1): parse, authorize, call the email service, shape the reply.
 * No rules live here; see service.ts and checks.ts.
 */
import { hasScope } from '../platform/http/app.js';
import { AppError, notFound } from '../platform/http/errors.js';
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteSpec } from '../platform/http/route.js';
import { detailBody, refBody } from './model.js';
import {
  batchRequest,
  batchResponse,
  idempotencyHeader,
  listQuery,
  listResponse,
  messageParams,
  messageResponse,
  sendRequest,
  sendResponse,
} from './schemas.js';
import { type EmailService, idempotencyKeyOf } from './service.js';

const TAG = 'Emails';
const messageId = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

export function emailRoutes(emails: EmailService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/emails',
      summary: 'Send an email (queued; 202 never means delivered)',
      tag: TAG,
      auth: 'key',
      scope: 'emails:send',
      // The message is the send's record; an audit record per send would double its writes.
      audit: false,
      body: sendRequest,
      requestHeaders: idempotencyHeader,
      responses: {
        202: {
          description:
            'Accepted and queued (or scheduled); a repeated Idempotency-Key returns the first message.',
          schema: sendResponse,
        },
        403: { description: 'Missing `emails:send`, project suspended, or sender not allowed.' },
        422: { description: 'A recipient is on the suppression list: exactly `{"error": "..."}`.' },
        429: { description: 'Quota or rate limit reached; see Retry-After and RateLimit headers.' },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        const key = idempotencyKeyOf(req.headers['idempotency-key']);
        const outcome = await emails.send(principal, req.body, key);
        const headers = outcome.created
          ? outcome.headers
          : { ...outcome.headers, 'Idempotent-Replayed': 'true' };
        return { status: 202, headers, body: refBody(outcome.ref) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/emails/batch',
      summary: 'Send up to 100 emails; each item is checked on its own',
      tag: TAG,
      auth: 'key',
      scope: 'emails:send',
      audit: false,
      body: batchRequest,
      requestHeaders: {
        'Idempotency-Key': {
          description: 'Base key: an item without `idempotency_key` uses "<base>-<index>" (index from 0).',
        },
      },
      responses: {
        202: { description: 'Every item accepted.', schema: batchResponse },
        207: {
          description:
            'Some items failed; each failed item has `status_code` and `error`. When items hit a quota or rate limit (429), Retry-After and RateLimit headers give the soonest retry.',
          schema: batchResponse,
        },
        403: { description: 'Missing `emails:send`, or project suspended.' },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        const base = idempotencyKeyOf(req.headers['idempotency-key']);
        const { results, headers } = await emails.sendBatch(principal, req.body.emails, base);
        const allAccepted = results.every((result) => 'id' in result);
        return { status: allAccepted ? 202 : 207, headers, body: { data: results } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/emails',
      summary: 'List messages of the key’s mode (test or live), newest first',
      tag: TAG,
      auth: 'key',
      scope: 'emails:read',
      query: listQuery,
      responses: {
        200: {
          description:
            'A page of messages sent with keys of the calling key’s mode (a `ph_test_` key sees test messages only, a `ph_live_` key live ones); pass the last `id` as `after` for the next.',
          schema: listResponse,
        },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        const page = await emails.list(principal, req.query.limit, req.query.after);
        return {
          status: 200,
          body: {
            data: page.data.map((m) => ({
              id: m.id,
              from: m.from,
              to: m.to,
              subject: m.subject,
              status: m.status,
              created_at: new Date(m.createdAt).toISOString(),
              ...(m.sendAt === null ? {} : { scheduled_at: new Date(m.sendAt).toISOString() }),
            })),
            has_more: page.hasMore,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/emails/{id}',
      summary: 'A message’s current status (needs `emails:read` or `emails:send`)',
      tag: TAG,
      auth: 'key',
      params: messageParams,
      responses: {
        200: {
          description:
            'The send-response shape with the current status, and each recipient’s status (`cancelled` once a scheduled send is cancelled).',
          schema: messageResponse,
        },
        403: { description: 'The key has neither `emails:read` nor `emails:send`.' },
        404: {
          description:
            'No such message in this project, or one of the other key mode (a `ph_test_` key’s messages are not a `ph_live_` key’s): the same answer.',
        },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        if (!hasScope(principal, 'emails:read') && !hasScope(principal, 'emails:send')) {
          throw new AppError('forbidden', 'This API key lacks the `emails:read` scope.');
        }
        const detail = messageId.test(req.params.id)
          ? await emails.detail(principal, req.params.id)
          : undefined;
        if (!detail) throw notFound(`Message ${req.params.id}`);
        return { status: 200, body: detailBody(detail) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/emails/{id}/schedule',
      summary: 'Cancel a scheduled send before its time',
      tag: TAG,
      auth: 'key',
      scope: 'emails:send',
      params: messageParams,
      responses: {
        204: { description: 'Cancelled: the message, its recipients and its jobs are `cancelled`.' },
        404: {
          description:
            'No such message (one of the other key mode included), or it is not (or no longer) scheduled.',
        },
      },
      handler: async (req) => {
        const principal = requireKey(req.principal);
        const cancelled =
          messageId.test(req.params.id) && (await emails.cancelSchedule(principal, req.params.id));
        if (!cancelled) throw notFound(`Scheduled message ${req.params.id}`);
        return { status: 204 };
      },
    }),
  ];
}
