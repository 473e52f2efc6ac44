/**
 * `GET`/`PUT /v1/tracking` (spec §4.4) and the public tracking endpoints the pixel and tracked
 * links point at. Those answer at once (the hit is only handed to the recorder) and refuse any
 * token this server did not make with a 404: the click endpoint redirects only to URLs it wrote.
 */
import { AppError } from '../platform/http/errors.js';
import { requireKey } from '../platform/http/principal.js';
import { defineRoute, type RouteRequest, type RouteSpec } from '../platform/http/route.js';
import { tokenParams, trackingSettings, trackingSettingsRequest } from './schemas.js';
import type { TrackingService } from './service.js';

const TAG = 'Tracking';

/**
 * The 43-byte transparent GIF89a (1×1, a two-colour table, colour 0 transparent through a
 * Graphic Control Extension).
 */
export const PIXEL = Buffer.from(
  '47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b',
  'hex',
);

/** Neither the browser nor a proxy keeps a copy: every open reaches the server. */
const NO_CACHE = {
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
};

const unknownToken = () => new AppError('not_found', 'This tracking link is not valid.');

function client(req: RouteRequest<unknown, unknown, unknown>) {
  return {
    method: req.ctx.method,
    userAgent: req.ctx.get('user-agent') || undefined,
    ip: req.ctx.ip || null,
  };
}

export function trackingRoutes(tracking: TrackingService): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/tracking',
      summary: "The project's open and click tracking settings",
      tag: TAG,
      auth: 'key',
      scope: 'tracking:read',
      responses: {
        200: {
          description: 'The settings (the defaults until the project sets them).',
          schema: trackingSettings,
        },
      },
      handler: async (req) => ({
        status: 200,
        body: await tracking.settings.get(requireKey(req.principal).projectId),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/tracking',
      summary: 'Replace the tracking settings; a custom domain is checked in DNS at once',
      tag: TAG,
      auth: 'key',
      scope: 'tracking:write',
      body: trackingSettingsRequest,
      responses: {
        200: {
          description: 'The updated settings, with the DNS state of the custom domain.',
          schema: trackingSettings,
        },
      },
      handler: async (req) => ({
        status: 200,
        body: await tracking.settings.put(requireKey(req.principal).projectId, req.body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/track/open/{token}',
      summary: 'The open pixel: a 43-byte transparent GIF (no auth; also answers HEAD)',
      tag: TAG,
      auth: 'none',
      privateClient: true,
      summarizedAccess: true,
      params: tokenParams,
      responses: {
        200: { description: 'The pixel, never cached.', contentType: 'image/gif' },
        404: { description: 'Not a token this server made.' },
      },
      handler: async (req) => {
        const pending = tracking.open(req.params.token, client(req));
        if (pending === false) throw unknownToken();
        if (pending) await pending;
        return { status: 200, headers: NO_CACHE, raw: { contentType: 'image/gif', data: PIXEL } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/track/click/{token}',
      summary: 'A tracked link: redirects to the original URL (no auth; also answers HEAD)',
      tag: TAG,
      auth: 'none',
      privateClient: true,
      summarizedAccess: true,
      params: tokenParams,
      responses: {
        302: { description: 'To the link as the message had it.' },
        404: { description: 'Not a token this server made: nothing is recorded and nothing redirected.' },
      },
      handler: async (req) => {
        const click = tracking.click(req.params.token, client(req));
        if (click === false) throw unknownToken();
        if (click.pending) await click.pending;
        return {
          status: 302,
          headers: { ...NO_CACHE, location: click.url, 'referrer-policy': 'no-referrer' },
          raw: { contentType: 'text/plain; charset=utf-8', data: `Redirecting to ${click.url}\n` },
        };
      },
    }),
  ];
}
