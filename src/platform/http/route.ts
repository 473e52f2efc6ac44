/**
 * A route is data: method, path, auth, scope, schemas and a handler. The same object registers the
 * Koa route, validates the request and writes the route's OpenAPI operation, so the document can
 * never drift from what the server accepts.
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import type { AppError } from './errors.js';
import type { Principal } from './principal.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type AuthKind = 'key' | 'session' | 'none';

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: z.ZodType;
  readonly contentType?: string;
}

export interface RouteRequest<B, Q, P> {
  readonly body: B;
  readonly query: Q;
  readonly params: P;
  /** Set for routes with auth 'key' or 'session'. */
  readonly principal: Principal;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly requestId: string;
  readonly log: Logger;
  readonly ctx: Context;
}

export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** A non-JSON body (bytes, XML); `body` is ignored when set. */
  readonly raw?: { readonly contentType: string; readonly data: Buffer | string };
}

export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
> {
  readonly method: Method;
  /** OpenAPI style: `/v1/emails/{id}`. */
  readonly path: string;
  readonly summary: string;
  /** Longer text for the OpenAPI operation (e.g. which roles may call it). */
  readonly description?: string;
  readonly tag: string;
  readonly auth: AuthKind;
  /** Scope the API key needs; enforced before the handler runs. */
  readonly scope?: string;
  readonly body?: B;
  /** Accept `application/x-www-form-urlencoded` bodies (OAuth token endpoints). */
  readonly form?: boolean;
  /** The JSON body may be left out (or empty); the schema then parses `{}`. */
  readonly optionalBody?: boolean;
  /**
   * The handler reads the body itself as a stream (`req.ctx.req`): uploads past
   * `limits.max_body_bytes`, or media types other than JSON. Documented with these types.
   */
  readonly stream?: { readonly contentTypes: readonly string[]; readonly description: string };
  readonly query?: Q;
  readonly params?: P;
  /** Request headers worth documenting, name → description. */
  readonly requestHeaders?: Readonly<Record<string, { description: string; required?: boolean }>>;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /**
   * A probe that monitors and load balancers poll (`/health`): its access-log line is written at
   * debug, not info, so the polling does not bury the requests worth reading.
   */
  readonly probe?: boolean;
  /**
   * The clients are recipients, not API users (tracking pixels and links): the access log writes
   * their address truncated (src/platform/ip-prefix.ts), as the route's capability stores it.
   */
  readonly privateClient?: boolean;
  /**
   * A high-volume route (tracking hits): its answered requests are counted into one access-log
   * line per route every 10 s (access-summary.ts); a failed one (status ≥ 400) keeps its own line.
   */
  readonly summarizedAccess?: boolean;
  /**
   * `false` when the route's state changes are recorded elsewhere and must not also append an
   * audit record (a send is its own record: the message). Default: a successful request that is
   * not a GET, made with a key or a session, appends one unless the service recorded its own.
   */
  readonly audit?: false;
  /**
   * Renders the refusals made before the handler runs (a body that does not parse, 413, 415) in
   * the route's own error format: OAuth endpoints answer RFC 6749 bodies, not `{"error": "..."}`.
   */
  readonly renderError?: (error: AppError) => RouteResult;
  readonly handler: (
    req: RouteRequest<z.output<B>, z.output<Q>, z.output<P>>,
  ) => Promise<RouteResult> | RouteResult;
}

/** Keeps the handler's argument types tied to the schemas. */
export function defineRoute<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(
  spec: RouteSpec<B, Q, P>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}
