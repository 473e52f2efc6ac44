/**
 * The audit log's part in every HTTP request made with a key or a session: the request runs in an
 * audit scope naming its actor (so services' records carry the address and user agent), and a
 * successful change that no service recorded by name appends one record of its own, named after
 * the route (`POST /v1/domains`), with the resource's ID as target. GETs change nothing and are
 * not recorded; routes whose changes are their own record (a send) say `audit: false`.
 */
import type { AroundHandler } from '../platform/http/app.js';
import type { RouteResult } from '../platform/http/route.js';
import { actorOf } from './actor.js';
import { runInAuditScope } from './context.js';
import type { AuditService } from './service.js';

function targetOf(params: unknown, result: RouteResult): string | null {
  const fromParams = (params as Record<string, unknown> | undefined)?.id;
  if (typeof fromParams === 'string') return fromParams;
  const body = result.body as Record<string, unknown> | undefined;
  return body && typeof body.id === 'string' ? body.id : null;
}

export function auditedRequests(audit: AuditService): AroundHandler {
  return async ({ spec, principal, ctx }, run) => {
    if (spec.method === 'get' || spec.audit === false) return run();
    const actor = actorOf(principal, ctx.ip || null, ctx.get('User-Agent') || null);
    if (!actor) return run();
    const scope = {
      actor,
      organizationId: 'organizationId' in principal ? principal.organizationId : null,
      projectId: 'projectId' in principal ? principal.projectId : null,
      recorded: false,
    };
    return runInAuditScope(scope, async () => {
      const result = await run();
      if (!scope.recorded && result.status < 400) {
        await audit.record({
          action: `${spec.method.toUpperCase()} ${spec.path}`,
          target: targetOf(ctx.params, result),
        });
      }
      return result;
    });
  };
}
