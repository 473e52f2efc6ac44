/**
 * The only file that reads and writes the dedicated-IP tables (migration 0025a), through Kysely.
 */
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type {
  DedicatedIpAssignmentsTable,
  DedicatedIpRequestsTable,
  DedicatedIpUsageTable,
} from '../../platform/db/tables.js';

export type RequestRow = DedicatedIpRequestsTable;
export type AssignmentRow = DedicatedIpAssignmentsTable;

export function createDedicatedIpStore(db: Db) {
  return {
    async insertRequest(row: RequestRow, executor: Db = db): Promise<void> {
      await executor.insertInto('dedicated_ip_requests').values(row).execute();
    },

    getRequest(id: string, executor: Db = db): Promise<RequestRow | undefined> {
      return executor.selectFrom('dedicated_ip_requests').selectAll().where('id', '=', id).executeTakeFirst();
    },

    pendingRequest(projectId: string, executor: Db = db): Promise<RequestRow | undefined> {
      return executor
        .selectFrom('dedicated_ip_requests')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('status', '=', 'pending')
        .executeTakeFirst();
    },

    /** Requests of one project (newest first), or of every project when `projectId` is undefined. */
    listRequests(projectId?: string, status?: RequestRow['status']): Promise<RequestRow[]> {
      let query = db.selectFrom('dedicated_ip_requests').selectAll().orderBy('id', 'desc');
      if (projectId !== undefined) query = query.where('project_id', '=', projectId);
      if (status !== undefined) query = query.where('status', '=', status);
      return query.execute();
    },

    /** Sets a pending request's review; false when it was no longer pending. */
    async review(
      id: string,
      review: Pick<RequestRow, 'status' | 'review_note' | 'reviewed_by' | 'reviewed_at' | 'ip' | 'plan'>,
      executor: Db = db,
    ): Promise<boolean> {
      const result = await executor
        .updateTable('dedicated_ip_requests')
        .set(review)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insertAssignment(row: AssignmentRow, executor: Db = db): Promise<void> {
      await executor.insertInto('dedicated_ip_assignments').values(row).execute();
    },

    assignments(projectId?: string, executor: Db = db): Promise<AssignmentRow[]> {
      let query = executor.selectFrom('dedicated_ip_assignments').selectAll();
      if (projectId !== undefined) query = query.where('project_id', '=', projectId);
      return query.execute();
    },

    usageOn(day: number, ips?: readonly string[]): Promise<DedicatedIpUsageTable[]> {
      let query = db.selectFrom('dedicated_ip_usage').selectAll().where('day', '=', day);
      if (ips !== undefined) {
        if (ips.length === 0) return Promise.resolve([]);
        query = query.where('ip', 'in', ips);
      }
      return query.execute();
    },

    /** Adds `sent` recipients to an address's count of a day and lane. */
    async addUsage(ip: string, day: number, lane: string, sent: number): Promise<void> {
      await db
        .insertInto('dedicated_ip_usage')
        .values({ ip, day, lane, sent })
        .onConflict((oc) =>
          oc
            .columns(['ip', 'day', 'lane'])
            .doUpdateSet({ sent: sql<number>`dedicated_ip_usage.sent + excluded.sent` }),
        )
        .execute();
    },

    async purgeUsageBefore(day: number): Promise<void> {
      await db.deleteFrom('dedicated_ip_usage').where('day', '<', day).execute();
    },
  };
}

export type DedicatedIpStore = ReturnType<typeof createDedicatedIpStore>;
