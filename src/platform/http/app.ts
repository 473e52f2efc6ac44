/**
 * The Koa application: request frame, routes from the capabilities' route lists, 404/405 as
 * errors. It knows no business rules; capabilities hand it RouteSpecs.
 */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Logger } from '../log.js';
import type { AccessSummary } from './access-summary.js';
import { readBody, refuseBody } from './body.js';
import { AppError } from './errors.js';
import { type RequestState, requestFrame } from './middleware.js';
import type { Principal } from './principal.js';
import type { AuthKind, RouteResult, RouteSpec } from './route.js';
import { parseOrThrow } from './validate.js';

export type Authenticator = (ctx: Context) => Promise<Principal> | Principal;

/**
 * Runs around every handler once its caller is known (the audit log's request scope,
 * audit/http.ts); it must call `run` once and return its result.
 */
export type AroundHandler = (
  call: { readonly spec: RouteSpec; readonly principal: Principal; readonly ctx: Context },
  run: () => Promise<RouteResult>,
) => Promise<RouteResult>;

/**
 * Told of every request refused with a 401, 403 or 404 by a route (the audit log's record of
 * access-control failures, audit/denials.ts); `principal` is undefined when authentication itself
 * refused. It must not throw; the refusal is answered as it was whatever it does.
 */
export type DeniedHandler = (call: {
  readonly spec: RouteSpec;
  readonly principal: Principal | undefined;
  readonly ctx: Context;
  readonly error: AppError;
}) => Promise<void>;

export interface AppOptions {
  readonly log: Logger;
  readonly accessLog: boolean;
  /** Where high-volume routes' requests are counted (its owner flushes it on stop). */
  readonly accessSummary?: AccessSummary;
  readonly maxBodyBytes: number;
  readonly trustProxy: boolean;
  readonly routes: readonly RouteSpec[];
  readonly authenticators: Partial<Record<AuthKind, Authenticator>>;
  readonly around?: AroundHandler;
  readonly denied?: DeniedHandler;
  /** Answers a request no route matched (the web dashboard's pages); returns false to 404. */
  readonly fallback?: (ctx: Context) => boolean;
}

const anonymous: Principal = { kind: 'none' };

export function koaPath(openapiPath: string): string {
  return openapiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export function hasScope(principal: Principal, scope: string): boolean {
  if (principal.kind !== 'key') return true;
  return principal.scopes.has(scope) || principal.scopes.has('full_access');
}

const DENIALS = new Set([401, 403, 404]);

function handle(spec: RouteSpec, options: AppOptions) {
  const run = options.denied
    ? noticeDenials(spec, answer(spec, options), options.denied)
    : answer(spec, options);
  if (!spec.renderError) return run;
  const render = spec.renderError;
  return async (ctx: Context): Promise<void> => {
    try {
      await run(ctx);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      respond(ctx, render(error));
    }
  };
}

function noticeDenials(spec: RouteSpec, run: (ctx: Context) => Promise<void>, denied: DeniedHandler) {
  return async (ctx: Context): Promise<void> => {
    try {
      await run(ctx);
    } catch (error) {
      if (error instanceof AppError && DENIALS.has(error.status)) {
        const principal = (ctx.state as RequestState).principal;
        await denied({ spec, principal, ctx, error }).catch((failure: unknown) =>
          (ctx.state as RequestState).log.error({ err: failure }, 'recording a refusal failed'),
        );
      }
      throw error;
    }
  };
}

function respond(ctx: Context, result: RouteResult): void {
  ctx.status = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  if (result.raw) {
    ctx.type = result.raw.contentType;
    ctx.body = result.raw.data;
  } else if (result.body !== undefined) {
    ctx.body = result.body;
  }
}

function answer(spec: RouteSpec, options: AppOptions) {
  return async (ctx: Context): Promise<void> => {
    const state = ctx.state as RequestState;
    if (spec.probe) state.probe = true;
    if (spec.privateClient) state.privateClient = true;
    if (spec.summarizedAccess) state.summarized = true;
    const authenticate = spec.auth === 'none' ? undefined : options.authenticators[spec.auth];
    if (spec.auth !== 'none' && !authenticate) throw new Error(`no authenticator for ${spec.auth}`);
    const principal = authenticate ? await authenticate(ctx) : anonymous;
    state.principal = principal;
    if (spec.scope && !hasScope(principal, spec.scope)) {
      throw new AppError(
        'forbidden',
        principal.kind === 'key' && principal.dashboard
          ? `Your role (${principal.dashboard.role}) may not use this; it needs the \`${spec.scope}\` scope.`
          : `This API key lacks the \`${spec.scope}\` scope.`,
      );
    }
    const params = spec.params ? parseOrThrow(spec.params, ctx.params, 'path') : ctx.params;
    const query = spec.query ? parseOrThrow(spec.query, { ...ctx.query }, 'query') : ctx.query;
    let body: unknown;
    if (spec.body) {
      const parsed = await readBody(ctx, options.maxBodyBytes, spec.form === true);
      if (!parsed.present && !spec.optionalBody)
        throw new AppError('invalid_request', 'Request body is required.');
      body = parseOrThrow(spec.body, parsed.present ? parsed.value : {}, 'body');
    } else if (!spec.stream) {
      await refuseBody(ctx, options.maxBodyBytes);
    }
    const run = async () =>
      spec.handler({
        body,
        query,
        params,
        principal,
        headers: ctx.headers,
        requestId: state.requestId,
        log: state.log,
        ctx,
      });
    respond(ctx, options.around ? await options.around({ spec, principal, ctx }, run) : await run());
  };
}

export function createApp(options: AppOptions): Koa {
  const app = new Koa({ proxy: options.trustProxy });
  app.silent = true;
  const router = new Router();
  for (const spec of options.routes) {
    router[spec.method](koaPath(spec.path), handle(spec, options));
  }
  app.use(requestFrame(options.log, options.accessLog, options.accessSummary));
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body != null) return;
    // The router answers a wrong method with a bare 405 and an Allow header; give it a body.
    if (ctx.status === 405 || ctx.status === 501) {
      throw new AppError(
        'method_not_allowed',
        `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`,
      );
    }
    if (ctx.status === 404 && options.fallback?.(ctx)) return;
    if (ctx.status === 404) throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
