/** The only file that queries `send_approvals` and `send_approval_policies`. */
import type { Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { ApprovalStatus, SendApprovalsTable } from '../platform/db/tables.js';

export type ApprovalRow = Selectable<SendApprovalsTable>;

export interface Policy {
  readonly requireApproval: boolean;
  readonly trustedClients: string[];
}

export interface Decision {
  readonly status: Exclude<ApprovalStatus, 'pending'>;
  readonly by: string | null;
  readonly note: string | null;
  readonly at: number;
}

export function createApprovalStore(db: Db) {
  return {
    async insert(executor: Db, row: ApprovalRow): Promise<void> {
      await executor.insertInto('send_approvals').values(row).execute();
    },
    async find(projectId: string, id: string): Promise<ApprovalRow | undefined> {
      return db
        .selectFrom('send_approvals')
        .selectAll()
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
    },
    /** Newest first; `after` is the last ID of the previous page; one extra row for has_more. */
    async list(
      projectId: string,
      status: ApprovalStatus | undefined,
      limit: number,
      after: string | undefined,
    ): Promise<ApprovalRow[]> {
      let query = db.selectFrom('send_approvals').selectAll().where('project_id', '=', projectId);
      if (status !== undefined) query = query.where('status', '=', status);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    },
    /** Records a decision on a pending approval; false when it was decided meanwhile. */
    async decide(id: string, decision: Decision, executor: Db = db): Promise<boolean> {
      const result = await executor
        .updateTable('send_approvals')
        .set({
          status: decision.status,
          decided_by: decision.by,
          note: decision.note,
          decided_at: decision.at,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Pending approvals whose time is up, oldest first. */
    async due(now: number, limit: number): Promise<ApprovalRow[]> {
      return db
        .selectFrom('send_approvals')
        .selectAll()
        .where('status', '=', 'pending')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
    },

    async policy(projectId: string): Promise<Policy> {
      const row = await db
        .selectFrom('send_approval_policies')
        .select(['require_approval', 'trusted_clients'])
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      // No row: the default, approval on and no client trusted.
      return {
        requireApproval: row === undefined || row.require_approval === 1,
        trustedClients: row === undefined ? [] : (JSON.parse(row.trusted_clients) as string[]),
      };
    },
    async setPolicy(projectId: string, policy: Policy, now: number): Promise<void> {
      const values = {
        require_approval: policy.requireApproval ? 1 : 0,
        trusted_clients: JSON.stringify(policy.trustedClients),
        updated_at: now,
      };
      await db
        .insertInto('send_approval_policies')
        .values({ project_id: projectId, ...values })
        .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
        .execute();
    },
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
