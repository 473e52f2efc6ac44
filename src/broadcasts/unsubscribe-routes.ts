/**
 * `/v1/unsubscribe/{token}` (spec §4.5, no credentials): `GET` unsubscribes and shows a plain
 * page that offers to subscribe again (the spec's 200 "contact unsubscribed"); `POST` with
 * `List-Unsubscribe=One-Click` is RFC 8058's one-click unsubscription, made by a mailbox provider
 * without any page; `POST .../resubscribe` is the page's button.
 */
import type { IncomingMessage } from 'node:http';
import { AppError } from '../platform/http/errors.js';
import { defineRoute, type RouteRequest, type RouteSpec } from '../platform/http/route.js';
import { z } from 'zod';
import { invalidPage, resubscribedPage, unsubscribedPage } from './pages.js';
import type { TokenOutcome, Unsubscribe } from './unsubscribe.js';

const TAG = 'Unsubscribe';
const HTML = 'text/html; charset=utf-8';
const MAX_FORM_BYTES = 64 * 1024;
// The token travels in the path: no cache keeps the page, no Referer carries it on.
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
};
const params = z.strictObject({
  token: z.string().min(1).max(200).describe('The token of an unsubscribe link.'),
});

async function readForm(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES)
      throw new AppError('payload_too_large', `The form is larger than ${MAX_FORM_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** RFC 8058 §3.2: the POST body carries `List-Unsubscribe=One-Click`, form-encoded or multipart. */
export function isOneClick(contentType: string, body: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return new URLSearchParams(body).getAll('List-Unsubscribe').includes('One-Click');
  }
  if (type === 'multipart/form-data') {
    return /name="?List-Unsubscribe"?[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i.test(body);
  }
  return false;
}

function client(req: RouteRequest<unknown, unknown, unknown>): Record<string, string> {
  const detail: Record<string, string> = { ip: req.ctx.ip };
  const agent = req.ctx.get('user-agent');
  if (agent) detail.user_agent = agent.slice(0, 300);
  return detail;
}

function htmlReply(status: number, data: string) {
  return { status, headers: PAGE_HEADERS, raw: { contentType: HTML, data } };
}

function pageOf(outcome: TokenOutcome, render: (outcome: TokenOutcome) => string) {
  return outcome.kind === 'invalid' ? htmlReply(404, invalidPage()) : htmlReply(200, render(outcome));
}

export function unsubscribeRoutes(unsubscribe: Unsubscribe): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/unsubscribe/{token}',
      summary: 'Unsubscribe the contact a link names, and show a page that offers to undo it',
      tag: TAG,
      auth: 'none',
      params,
      responses: {
        200: { description: 'The contact is unsubscribed (a page for people).', contentType: HTML },
        404: { description: 'The link is not valid (a page for people).', contentType: HTML },
      },
      handler: async (req) => {
        const outcome = await unsubscribe.unsubscribe(req.params.token, 'link', client(req));
        return pageOf(outcome, (o) => unsubscribedPage(o, req.params.token));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/unsubscribe/{token}',
      summary: 'One-click unsubscription (RFC 8058), as mailbox providers make it',
      tag: TAG,
      auth: 'none',
      params,
      stream: {
        contentTypes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
        description: 'List-Unsubscribe=One-Click (RFC 8058 §3.2).',
      },
      responses: {
        200: { description: 'The contact is unsubscribed.', contentType: HTML },
        400: { description: 'The body is not List-Unsubscribe=One-Click.' },
        404: { description: 'The link is not valid.' },
      },
      handler: async (req) => {
        const body = await readForm(req.ctx.req);
        if (!isOneClick(req.ctx.get('content-type'), body)) {
          throw new AppError(
            'invalid_request',
            'A one-click unsubscription posts List-Unsubscribe=One-Click as application/x-www-form-urlencoded or multipart/form-data (RFC 8058 §3.2); open the link to unsubscribe from a browser.',
          );
        }
        const outcome = await unsubscribe.unsubscribe(req.params.token, 'one_click', client(req));
        if (outcome.kind === 'invalid')
          throw new AppError('not_found', 'This unsubscribe link is not valid.');
        return htmlReply(200, unsubscribedPage(outcome, req.params.token));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/unsubscribe/{token}/resubscribe',
      summary: "Subscribe again (the unsubscribe page's button)",
      tag: TAG,
      auth: 'none',
      params,
      stream: {
        contentTypes: ['application/x-www-form-urlencoded'],
        description: 'The page’s form; its fields are not read.',
      },
      responses: {
        200: { description: 'Subscribed again.', contentType: HTML },
        404: { description: 'The link is not valid.', contentType: HTML },
      },
      handler: async (req) => {
        await readForm(req.ctx.req);
        return pageOf(await unsubscribe.resubscribe(req.params.token, client(req)), resubscribedPage);
      },
    }),
  ];
}
