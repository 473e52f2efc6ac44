/**
 * The request frame: a request ID on every response, one access-log line per request (at debug
 * for probes such as `/health`; counted into a line per route every 10 s for high-volume routes,
 * access-summary.ts, unless it failed), and the one place errors are rendered and logged.
 */
import type { Context, Next } from 'koa';
import { isStorageFull } from '../db/storage-full.js';
import { newId } from '../ids.js';
import { truncateIp } from '../ip-prefix.js';
import type { Logger } from '../log.js';
import { AccessSummary } from './access-summary.js';
import { AppError } from './errors.js';
import type { Principal } from './principal.js';

const incomingId = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestState {
  requestId: string;
  log: Logger;
  /** Set by a probe route (`RouteSpec.probe`): its access-log line is debug. */
  probe?: boolean;
  /** Set by a route of recipients' clients (`RouteSpec.privateClient`): its line has the address truncated. */
  privateClient?: boolean;
  /** Set by a high-volume route (`RouteSpec.summarizedAccess`): answered requests are counted, not logged each. */
  summarized?: boolean;
  /** Who the route's authenticator found (app.ts), for the record of a refusal that follows. */
  principal?: Principal;
}

export function requestFrame(log: Logger, accessLog: boolean, summary = new AccessSummary(log)) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const given = ctx.get('x-request-id');
    const requestId = incomingId.test(given) ? given : newId('req');
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.log = log.child({ request_id: requestId });
    ctx.set('X-Request-ID', requestId);
    // Read now: once a connection is gone, its socket is null and `ctx.ip` throws.
    const ip = ctx.ip;
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      renderError(ctx, error, state.log);
    } finally {
      if (accessLog) logAccess(ctx, state, ip, started, summary);
    }
  };
}

/**
 * One line per request, at info (a probe's at debug); it never throws, so it cannot turn an
 * answered request into Koa's bare 500.
 */
function logAccess(
  ctx: Context,
  state: RequestState,
  ip: string,
  started: number,
  summary: AccessSummary,
): void {
  try {
    const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? '(unmatched)';
    const duration = performance.now() - started;
    if (state.summarized && ctx.status < 400) {
      summary.add(ctx.method, route, ctx.status, duration);
      return;
    }
    state.log[state.probe ? 'debug' : 'info'](
      {
        method: ctx.method,
        route,
        status: ctx.status,
        duration_ms: Math.round(duration * 10) / 10,
        ip: state.privateClient ? truncateIp(ip) : ip,
      },
      'request',
    );
  } catch {
    // A logger that cannot write has nowhere to report that either.
  }
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

function renderError(ctx: Context, error: unknown, log: Logger): void {
  if (!(error instanceof AppError && error.status < 500) && isStorageFull(error)) {
    // Logged at error: the operator must free space; the client only has to try again.
    log.error({ err: error }, 'the store has no room left on its disk');
    ctx.status = 503;
    ctx.set('Retry-After', '30');
    ctx.body = { error: 'The server has no disk space left; nothing was stored. Try again later.' };
    return;
  }
  if (error instanceof AppError) {
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.body = error.details ? { error: error.message, details: error.details } : { error: error.message };
    if (error.status >= 500) log.error({ err: error }, 'request failed');
    return;
  }
  const http = (error ?? {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;
  if (status && status >= 400 && status < 500 && http.expose) {
    ctx.status = status;
    ctx.body = { error: http.message ?? 'Bad request.' };
    return;
  }
  log.error({ err: error }, 'unhandled error');
  ctx.status = 500;
  ctx.body = {
    error: `Internal error; quote request ID ${(ctx.state as RequestState).requestId} when reporting it.`,
  };
}
