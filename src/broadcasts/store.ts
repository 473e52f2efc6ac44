/**
 * The only place that queries `broadcasts` and `broadcast_messages`. A broadcast's progress also
 * reads the statuses of its messages' recipients (`message_recipients`, the send path's rows),
 * joined through its ledger and never written here; and the expansion's pace counts the queued
 * marketing jobs (`delivery_jobs`, read only, on the partial index of queued jobs).
 */
import type { Db } from '../platform/db/database.js';
import type { BroadcastStatus, BroadcastsTable, KeyMode } from '../platform/db/tables.js';

export type BroadcastRow = BroadcastsTable;

export interface Scope {
  readonly projectId: string;
  readonly mode: KeyMode;
}

export interface LedgerEntry {
  readonly contact_id: string;
  readonly message_id: string;
}

export function createBroadcastStore(db: Db) {
  return {
    async insert(row: BroadcastRow): Promise<void> {
      await db.insertInto('broadcasts').values(row).execute();
    },

    async get(scope: Scope, id: string, executor: Db = db): Promise<BroadcastRow | undefined> {
      return executor
        .selectFrom('broadcasts')
        .selectAll()
        .where('id', '=', id)
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode)
        .executeTakeFirst();
    },

    async byId(id: string, executor: Db = db): Promise<BroadcastRow | undefined> {
      return executor.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async list(
      scope: Scope,
      limit: number,
      after: string | undefined,
      status: BroadcastStatus | undefined,
    ): Promise<BroadcastRow[]> {
      let query = db
        .selectFrom('broadcasts')
        .selectAll()
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode);
      if (status) query = query.where('status', '=', status);
      if (after) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    },

    /**
     * Changes a broadcast only while its status is one of `from` (the compare-and-set every
     * transition uses, so a cancel and the expansion never both win). True when it changed.
     */
    async transition(
      id: string,
      from: readonly BroadcastStatus[],
      changes: Partial<BroadcastRow>,
      executor: Db = db,
    ): Promise<boolean> {
      const result = await executor
        .updateTable('broadcasts')
        .set(changes)
        .where('id', '=', id)
        .where('status', 'in', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Whether a broadcast still to send reads the audience. */
    async audienceInUse(projectId: string, audienceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('broadcasts')
        .select('id')
        .where('project_id', '=', projectId)
        .where('audience_id', '=', audienceId)
        .where('status', 'in', ['scheduled', 'sending'])
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Broadcasts to work on now: sending ones, and scheduled ones whose time has come (oldest first). */
    async runnable(now: number, limit: number): Promise<BroadcastRow[]> {
      return db
        .selectFrom('broadcasts')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('status', '=', 'sending'),
            eb.and([eb('status', '=', 'scheduled'), eb('send_at', '<=', now)]),
          ]),
        )
        .orderBy('send_at')
        .limit(limit)
        .execute();
    },

    /** The earliest time a scheduled broadcast is due, if any (the engine sleeps until then). */
    async nextDue(): Promise<number | undefined> {
      const row = await db
        .selectFrom('broadcasts')
        .select((eb) => eb.fn.min<number>('send_at').as('at'))
        .where('status', '=', 'scheduled')
        .executeTakeFirst();
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },

    /** Writes a batch's ledger and moves the cursor, in the admission's transaction. */
    async recordBatch(
      trx: Db,
      broadcastId: string,
      entries: readonly LedgerEntry[],
      cursor: string,
      counts: { queued: number; suppressed: number },
      now: number,
    ): Promise<boolean> {
      if (entries.length > 0) {
        await trx
          .insertInto('broadcast_messages')
          .values(entries.map((e) => ({ broadcast_id: broadcastId, ...e, created_at: now })))
          .execute();
      }
      const result = await trx
        .updateTable('broadcasts')
        .set((eb) => ({
          cursor,
          queued: eb('queued', '+', counts.queued),
          suppressed: eb('suppressed', '+', counts.suppressed),
          last_error: null,
          updated_at: now,
        }))
        .where('id', '=', broadcastId)
        .where('status', '=', 'sending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The contact and broadcast of a broadcast message (an unsubscribe token names the message). */
    async ledgerOf(messageId: string): Promise<{ broadcast_id: string; contact_id: string } | undefined> {
      return db
        .selectFrom('broadcast_messages')
        .select(['broadcast_id', 'contact_id'])
        .where('message_id', '=', messageId)
        .executeTakeFirst();
    },

    /** Recipient statuses of the broadcast's messages, counted. */
    async recipientStatuses(broadcastId: string): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('broadcast_messages as b')
        .innerJoin('message_recipients as r', 'r.message_id', 'b.message_id')
        .select(['r.status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('b.broadcast_id', '=', broadcastId)
        .groupBy('r.status')
        .execute();
      const out: Record<string, number> = {};
      for (const row of rows) out[row.status] = Number(row.n);
      return out;
    },

    /**
     * Marketing jobs queued, due now and not leased, all projects: what delivery has yet to take
     * up. Leased jobs are left out: the lanes bound how many are in hand, and those a crashed
     * process held must not stop a broadcast until their leases run out.
     */
    async marketingBacklog(now: number): Promise<number> {
      const row = await db
        .selectFrom('delivery_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('traffic', '=', 'marketing')
        .where('state', '=', 'queued')
        .where('due_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async update(id: string, changes: Partial<BroadcastRow>): Promise<void> {
      await db.updateTable('broadcasts').set(changes).where('id', '=', id).execute();
    },
  };
}

export type BroadcastStore = ReturnType<typeof createBroadcastStore>;
