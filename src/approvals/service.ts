/**
 * Agent sends awaiting a person (spec §3.2, §4.8): the list of what each will send, approving
 * (the message is queued as a send is; emails/held.ts runs a send's checks again and answers their
 * refusal), rejecting with an optional note, expiring what nobody decided in time, and the
 * project's policy. A decision and its effect on the message commit together; of two decisions
 * made at once, the first wins and the other is a 409 (or, the same decision again, its answer).
 */
import type { AuditService } from '../audit/service.js';
import type { HeldContent, HeldSends } from '../emails/held.js';
import { requirePermission } from '../members/permissions.js';
import type { ApprovalStatus } from '../platform/db/tables.js';
import { conflict, notFound } from '../platform/http/errors.js';
import type { SessionPrincipal } from '../platform/http/principal.js';
import type { Logger } from '../platform/log.js';
import type { ApprovalRow, ApprovalStore, Policy } from './store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function contentView(content: HeldContent | undefined) {
  if (!content) return null;
  return {
    id: content.id,
    status: content.status,
    from: content.from,
    to: content.to,
    cc: content.cc,
    bcc: content.bcc,
    reply_to: content.replyTo,
    subject: content.subject,
    html: content.html,
    text: content.text,
    headers: content.headers,
    tags: content.tags,
    scheduled_at: iso(content.sendAt),
    template: content.template,
  };
}

export type ApprovalView = ReturnType<typeof view>;

function view(row: ApprovalRow, content: HeldContent | undefined) {
  return {
    id: row.id,
    status: row.status,
    client: { client_id: row.client_id, client_name: row.client_name },
    grant_id: row.grant_id,
    authorized_by: { user_id: row.user_id, email: row.user_email },
    created_at: iso(row.created_at) as string,
    expires_at: iso(row.expires_at) as string,
    decided_at: iso(row.decided_at),
    decided_by: row.decided_by,
    note: row.note,
    message: contentView(content),
  };
}

export interface ApprovalDeps {
  readonly store: ApprovalStore;
  readonly held: HeldSends;
  readonly audit: AuditService;
  readonly log: Logger;
}

export function createApprovalService(deps: ApprovalDeps) {
  const { store, held } = deps;

  async function views(projectId: string, rows: readonly ApprovalRow[]): Promise<ApprovalView[]> {
    const contents = await held.contents(
      projectId,
      rows.map((row) => row.message_id),
    );
    return rows.map((row) => view(row, contents.get(row.message_id)));
  }

  async function find(session: SessionPrincipal, id: string): Promise<ApprovalRow> {
    const row = await store.find(session.projectId, id);
    if (!row) throw notFound(`Send approval ${id}`);
    return row;
  }

  /** Rejects (a person's, or expiry) a pending approval's message; false when decided meanwhile. */
  async function refuse(
    row: ApprovalRow,
    reason: 'rejected' | 'expired',
    by: string | null,
    note: string | null,
  ): Promise<boolean> {
    const decision = { status: reason, by, note, at: Date.now() };
    let lost = false;
    try {
      const rejected = await held.reject(row.project_id, row.message_id, { reason, note }, async (trx) => {
        if (await store.decide(row.id, decision, trx)) return;
        lost = true;
        throw conflict(`Send approval ${row.id} was decided meanwhile.`);
      });
      // A message no longer held (nothing should make one so) must not leave its approval pending.
      return rejected || (await store.decide(row.id, decision));
    } catch (error) {
      if (lost) return false;
      throw error;
    }
  }

  const settled = (row: ApprovalRow) =>
    conflict(
      `Send approval ${row.id} is ${row.status}${row.decided_at === null ? '' : ` since ${iso(row.decided_at)}`}; it can no longer be changed.`,
    );

  return {
    async list(
      session: SessionPrincipal,
      query: { status?: ApprovalStatus | undefined; limit: number; after?: string | undefined },
    ): Promise<{ data: ApprovalView[]; has_more: boolean }> {
      requirePermission(session, 'messages:read');
      const rows = await store.list(session.projectId, query.status, query.limit + 1, query.after);
      return {
        data: await views(session.projectId, rows.slice(0, query.limit)),
        has_more: rows.length > query.limit,
      };
    },

    async get(session: SessionPrincipal, id: string): Promise<ApprovalView> {
      requirePermission(session, 'messages:read');
      return (await views(session.projectId, [await find(session, id)]))[0] as ApprovalView;
    },

    /** Queues the message as a send; approving an approved one again answers the same. */
    async approve(session: SessionPrincipal, id: string): Promise<ApprovalView> {
      requirePermission(session, 'emails:send');
      let row = await find(session, id);
      if (row.status === 'pending' && row.expires_at <= Date.now()) {
        await refuse(row, 'expired', null, null);
        row = await find(session, id);
      }
      if (row.status === 'approved') return this.get(session, id);
      if (row.status !== 'pending') throw settled(row);
      const at = Date.now();
      const released = await held.release(row.project_id, row.message_id, async (trx) => {
        if (!(await store.decide(row.id, { status: 'approved', by: session.userId, note: null, at }, trx)))
          throw conflict(`Send approval ${row.id} was decided meanwhile.`);
      });
      if (released.kind === 'not_held')
        throw conflict(`The message of send approval ${row.id} is no longer held.`);
      await deps.audit.record({
        action: 'send_approval.approve',
        organizationId: session.organizationId,
        projectId: session.projectId,
        target: row.id,
        details: { message_id: row.message_id, client_id: row.client_id },
      });
      return this.get(session, id);
    },

    /** Rejects the message (`rejected`, `email.rejected`); rejecting a rejected one again is fine. */
    async reject(session: SessionPrincipal, id: string, note: string | null): Promise<void> {
      requirePermission(session, 'emails:send');
      const row = await find(session, id);
      if (row.status === 'rejected') return;
      if (row.status !== 'pending') throw settled(row);
      if (!(await refuse(row, 'rejected', session.userId, note))) {
        const now = await find(session, id);
        if (now.status === 'rejected') return;
        throw settled(now);
      }
      await deps.audit.record({
        action: 'send_approval.reject',
        organizationId: session.organizationId,
        projectId: session.projectId,
        target: row.id,
        details: { message_id: row.message_id, client_id: row.client_id },
      });
    },

    /** Expires the pending approvals whose time is up (the engine calls this); how many. */
    async expireDue(now = Date.now()): Promise<number> {
      let expired = 0;
      for (const row of await store.due(now, 100)) {
        if (await refuse(row, 'expired', null, null)) expired++;
      }
      if (expired > 0) deps.log.info({ expired }, 'expired undecided send approvals');
      return expired;
    },

    async policy(session: SessionPrincipal): Promise<Policy> {
      return store.policy(session.projectId);
    },

    async setPolicy(session: SessionPrincipal, policy: Policy): Promise<Policy> {
      requirePermission(session, 'api_keys:manage');
      const next = { ...policy, trustedClients: [...new Set(policy.trustedClients)] };
      await store.setPolicy(session.projectId, next, Date.now());
      await deps.audit.record({
        action: 'send_approval.policy',
        organizationId: session.organizationId,
        projectId: session.projectId,
        target: session.projectId,
        details: { require_approval: next.requireApproval, trusted_clients: next.trustedClients },
      });
      return next;
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
