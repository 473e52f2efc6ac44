/**
 * The audit log: who did what to which resource, how they authenticated, from where. Every state
 * change made by a dashboard session, an API key or the CLI appends one record: services record
 * their own actions with names (`api_key.create`, `member.add`), and the HTTP layer records any
 * other successful change a route made (audit/http.ts). Failed sign-ins and access-control
 * failures (denials.ts) are recorded bounded: repeats within a minute grow one record's count
 * (coalesce.ts). Otherwise append-only; it never holds a secret.
 */
import type { Db } from '../platform/db/database.js';
import { newId } from '../platform/ids.js';
import { type Actor, actorFromText } from './actor.js';
import { createCoalescer } from './coalesce.js';
import { currentAuditScope } from './context.js';
import { type AuditRow, createAuditStore } from './store.js';

export interface AuditEntry {
  /**
   * Who acted. Omitted: the actor of the request in progress (context.ts), else `system`. Text is
   * read as older callers wrote it (`cli`, `key:key_...`).
   */
  readonly actor?: string | Actor;
  readonly action: string;
  readonly organizationId?: string | null;
  readonly projectId?: string | null;
  readonly target?: string | null;
  /** Never a secret: names, IDs, roles, scopes. */
  readonly details?: Record<string, unknown>;
}

export interface AuditRecordView {
  readonly id: string;
  readonly actor: { readonly type: string; readonly id: string; readonly auth_method: string | null };
  readonly action: string;
  readonly target: string | null;
  readonly project_id: string | null;
  readonly ip_address: string | null;
  readonly user_agent: string | null;
  readonly details: Record<string, unknown>;
  readonly created_at: string;
}

export function auditView(row: AuditRow): AuditRecordView {
  return {
    id: row.id,
    actor: { type: row.actor_kind, id: row.actor, auth_method: row.auth_method },
    action: row.action,
    target: row.target,
    project_id: row.project_id,
    ip_address: row.ip_address,
    user_agent: row.user_agent,
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_at: new Date(row.created_at).toISOString(),
  };
}

function resolveActor(given: AuditEntry['actor']): Actor {
  const scope = currentAuditScope();
  if (given === undefined) return scope?.actor ?? actorFromText('system');
  if (typeof given !== 'string') return given;
  // A service that names its caller as text inside a request: the request's actor knows more
  // (address, user agent, how it authenticated) and is the same one.
  const credential = scope?.actor.onBehalfOf?.grantId ?? scope?.actor.id;
  if (scope && (given === `key:${credential}` || given === scope.actor.id)) return scope.actor;
  return actorFromText(given);
}

function rowOf(entry: AuditEntry, now: number) {
  const actor = resolveActor(entry.actor);
  const scope = currentAuditScope();
  return {
    id: newId('aud_log', now),
    organization_id: entry.organizationId ?? scope?.organizationId ?? null,
    project_id: entry.projectId ?? scope?.projectId ?? null,
    actor: actor.id,
    actor_kind: actor.kind,
    auth_method: actor.authMethod,
    ip_address: actor.ip,
    user_agent: actor.userAgent,
    action: entry.action,
    target: entry.target ?? null,
    details: JSON.stringify(
      actor.onBehalfOf
        ? {
            ...entry.details,
            on_behalf_of: actor.onBehalfOf.userId,
            grant_id: actor.onBehalfOf.grantId,
          }
        : (entry.details ?? {}),
    ),
    created_at: now,
  };
}

export function createAuditService(db: Db) {
  const store = createAuditStore(db);
  const coalescer = createCoalescer(store);
  return {
    async record(entry: AuditEntry, executor: Db = db): Promise<void> {
      await store.insert(rowOf(entry, Date.now()), executor);
      const scope = currentAuditScope();
      if (scope) scope.recorded = true;
    },

    /**
     * A record an outsider can cause at will (a failed sign-in, a refused key, access denied):
     * repeats within a minute add to one record's `details.count`, and an organization's such
     * records are capped per minute (coalesce.ts).
     */
    async recordBounded(entry: AuditEntry): Promise<void> {
      const now = Date.now();
      await coalescer.add(rowOf(entry, now), now);
    },

    /** Writes the counts of coalesced records (on a timer and at shutdown). */
    flush: (): Promise<void> => coalescer.flush(),

    /** A page of the organization's records, newest first, and whether older ones remain. */
    async list(
      organizationId: string,
      options: { limit: number; after?: string; action?: string },
    ): Promise<{ data: AuditRecordView[]; has_more: boolean }> {
      await coalescer.flush();
      const rows = await store.listByOrganization(organizationId, {
        limit: options.limit + 1,
        ...(options.after === undefined ? {} : { after: options.after }),
        ...(options.action === undefined ? {} : { actionPrefix: options.action }),
      });
      return { data: rows.slice(0, options.limit).map(auditView), has_more: rows.length > options.limit };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
