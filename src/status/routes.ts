/**
 * The public status routes (spec §4.5, no auth): the status, the RSS feed, the human page, and
 * status subscriptions. The status, the feed and the page come ready-made from memory
 * (views/snapshot.ts) with an ETag, so a poller that already has them gets a 304.
 */
import { defineRoute, type RouteResult, type RouteSpec } from '../platform/http/route.js';
import type { Status } from './build.js';
import type { Rendered } from './views/snapshot.js';
import {
  oneClickBody,
  statusBodySchema,
  statusQuery,
  subscriptionBody,
  subscriptionRequest,
  tokenParams,
} from './schemas.js';

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function served(
  rendered: Rendered,
  ifNoneMatch: string | string[] | undefined,
  extra: Record<string, string> = {},
): RouteResult {
  const headers = { ETag: rendered.etag, 'Cache-Control': 'no-cache', ...extra };
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === rendered.etag))
    return { status: 304, headers };
  return { status: 200, headers, raw: { contentType: rendered.contentType, data: rendered.data } };
}

export function statusRoutes(status: Status): RouteSpec[] {
  const { snapshot, subscriptions } = status;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/status',
      summary: 'Current status: components, open incidents, maintenance and the incident history',
      tag: 'Status',
      auth: 'none',
      query: statusQuery,
      responses: {
        200: { description: 'The status, with one page of the history.', schema: statusBodySchema },
        304: { description: 'Unchanged since the ETag given in If-None-Match (default page only).' },
      },
      handler: async (req) => {
        if (req.query.limit === undefined && req.query.after === undefined)
          return served(await snapshot.json(), req.headers['if-none-match']);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-cache' },
          body: await snapshot.body(req.query.limit ?? 20, req.query.after),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/status/rss.xml',
      summary: 'RSS 2.0 feed of incident updates',
      tag: 'Status',
      auth: 'none',
      responses: {
        200: {
          description: 'One item per incident update, newest first.',
          contentType: 'application/rss+xml',
        },
        304: { description: 'Unchanged since the ETag given in If-None-Match.' },
      },
      handler: async (req) => served(await snapshot.rss(), req.headers['if-none-match']),
    }),
    defineRoute({
      method: 'get',
      path: '/status',
      summary: 'The status as a small HTML page (no script, no external resources)',
      tag: 'Status',
      auth: 'none',
      responses: {
        200: { description: 'The status page.', contentType: 'text/html' },
        304: { description: 'Unchanged since the ETag given in If-None-Match.' },
      },
      handler: async (req) =>
        served(await snapshot.html(), req.headers['if-none-match'], {
          'Content-Security-Policy': PAGE_POLICY,
          'X-Content-Type-Options': 'nosniff',
        }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/status/subscriptions',
      summary:
        'Subscribe to incident notices by email (verified by a link) or webhook (verified by a challenge)',
      description:
        'An email subscription is verified by the link mailed to it. A webhook subscription (https, public ' +
        'address) is verified by a challenge: Posthorn POSTs `{"type": "status.subscription.challenge", ' +
        '"created_at": "...", "data": {"subscription_id": "sub_...", "challenge": "..."}}`, signed as every ' +
        'notice (Standard Webhooks headers, the `secret` of the answer), and the endpoint answers 2xx with ' +
        '`{"challenge": "<the same value>"}`. Unanswered challenges are tried again on `status.retry_schedule`.',
      tag: 'Status',
      auth: 'none',
      body: subscriptionRequest,
      responses: {
        201: {
          description: 'The subscription, pending or verified (a repeated one is not duplicated).',
          schema: subscriptionBody,
        },
        400: { description: 'Unknown channel, malformed address, plain-HTTP or private webhook target.' },
        429: { description: 'Too many subscription requests from this address or for this destination.' },
      },
      handler: async (req) => ({
        status: 201,
        body: await subscriptions.subscribe(req.body, req.ctx.ip),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/status/subscriptions/verify/{token}',
      summary: 'Verify an email subscription with the token of its mailed link',
      tag: 'Status',
      auth: 'none',
      params: tokenParams,
      responses: {
        200: { description: 'The subscription, now verified.', schema: subscriptionBody },
        404: { description: 'Unknown, expired or already used token.' },
      },
      handler: async (req) => ({ status: 200, body: await subscriptions.verify(req.params.token) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/status/subscriptions/unsubscribe/{token}',
      summary: 'Remove a subscription with the token of its unsubscribe link',
      tag: 'Status',
      auth: 'none',
      params: tokenParams,
      responses: {
        200: { description: 'The subscription, now removed.', schema: subscriptionBody },
        404: { description: 'Unknown or already used token.' },
      },
      handler: async (req) => ({ status: 200, body: await subscriptions.unsubscribe(req.params.token) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/status/subscriptions/unsubscribe/{token}',
      summary: 'RFC 8058 one-click unsubscribe (the List-Unsubscribe-Post of notice mails)',
      tag: 'Status',
      auth: 'none',
      params: tokenParams,
      form: true,
      body: oneClickBody,
      responses: {
        200: { description: 'The subscription, now removed.', schema: subscriptionBody },
        404: { description: 'Unknown or already used token.' },
      },
      handler: async (req) => ({ status: 200, body: await subscriptions.unsubscribe(req.params.token) }),
    }),
  ];
}
