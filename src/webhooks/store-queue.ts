/**
 * The attempt queue: a pending attempt is due at `due_at`; the dispatcher leases it by setting
 * `locked_until`, so a process that dies mid-request leaves it due again after the lease. Part of
 * the webhooks store (store.ts), in a file of its own for size; the same tables, the same rules.
 */
import { engineOf } from '../platform/db/engine.js';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { WebhookAttemptsTable as AttemptRow } from '../platform/db/tables.js';
import { newId } from '../platform/ids.js';

/** What the dispatcher needs to send one attempt. */
export interface ClaimedAttempt {
  readonly id: string;
  readonly message_id: string;
  readonly endpoint_id: string;
  readonly attempt: number;
  readonly trigger: AttemptRow['trigger'];
  readonly replay_of: string | null;
  readonly body: string;
}

/** A new attempt waiting to be sent at `dueAt`: nothing requested or answered yet. */
export function pendingAttempt(
  fields: Pick<
    AttemptRow,
    'message_id' | 'endpoint_id' | 'attempt' | 'trigger' | 'replay_of' | 'previous_attempt_id'
  >,
  dueAt: number,
  createdAt: number = dueAt,
): AttemptRow {
  return {
    id: newId('whd', createdAt),
    ...fields,
    state: 'pending',
    due_at: dueAt,
    locked_until: null,
    url: null,
    requested_at: null,
    duration_ms: null,
    response_status: null,
    response_headers: null,
    response_body: null,
    error: null,
    created_at: createdAt,
  };
}

export function queueQueries(db: Db) {
  return {
    async insertAttempt(row: AttemptRow, executor: Db = db): Promise<void> {
      await executor.insertInto('webhook_attempts').values(row).execute();
    },

    /** Enabled endpoints with attempts due now, the longest-waiting first. */
    async endpointsWithDueAttempts(now: number, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_endpoints as e', 'e.id', 'a.endpoint_id')
        .select('a.endpoint_id')
        .where('a.state', '=', 'pending')
        .where('a.due_at', '<=', now)
        .where('e.status', '=', 'enabled')
        .where((eb) => eb.or([eb('a.locked_until', 'is', null), eb('a.locked_until', '<=', now)]))
        .groupBy('a.endpoint_id')
        .orderBy(sql`min(a.due_at)`)
        .limit(limit)
        .execute();
      return rows.map((row) => row.endpoint_id);
    },

    /** Leases up to `limit` due attempts of one endpoint until `lockUntil`. */
    async claim(
      endpointId: string,
      now: number,
      limit: number,
      lockUntil: number,
    ): Promise<ClaimedAttempt[]> {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('webhook_attempts as a')
          .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
          .select([
            'a.id',
            'a.message_id',
            'a.endpoint_id',
            'a.attempt',
            'a.trigger',
            'a.replay_of',
            'm.body',
          ])
          .where('a.endpoint_id', '=', endpointId)
          .where('a.state', '=', 'pending')
          .where('a.due_at', '<=', now)
          .where((eb) => eb.or([eb('a.locked_until', 'is', null), eb('a.locked_until', '<=', now)]))
          .orderBy('a.due_at')
          .limit(limit)
          .execute();
        if (rows.length > 0) {
          await trx
            .updateTable('webhook_attempts')
            .set({ locked_until: lockUntil })
            .where(
              'id',
              'in',
              rows.map((row) => row.id),
            )
            .execute();
        }
        return rows;
      });
    },

    /** When the dispatcher next has something to do (a due time or a lease running out). */
    async nextWakeAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_endpoints as e', 'e.id', 'a.endpoint_id')
        .select(
          engineOf(db) === 'postgresql'
            ? sql<number | null>`min(greatest(a.due_at, coalesce(a.locked_until, 0)))`.as('at')
            : sql<number | null>`min(max(a.due_at, coalesce(a.locked_until, 0)))`.as('at'),
        )
        .where('a.state', '=', 'pending')
        .where('e.status', '=', 'enabled')
        .executeTakeFirst();
      return row?.at ?? undefined;
    },

    /**
     * Attempts due by `now` and not sent yet, to enabled endpoints, and the due time of the oldest:
     * the backlog the status area reports (retries waiting for their time are not part of it).
     */
    async backlog(now: number): Promise<{ due: number; oldestDueAt: number | null }> {
      const row = await db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_endpoints as e', 'e.id', 'a.endpoint_id')
        .select((eb) => [eb.fn.countAll<number>().as('due'), eb.fn.min<number>('a.due_at').as('oldest')])
        .where('a.state', '=', 'pending')
        .where('a.due_at', '<=', now)
        .where('e.status', '=', 'enabled')
        .executeTakeFirst();
      return { due: Number(row?.due ?? 0), oldestDueAt: row?.oldest == null ? null : Number(row.oldest) };
    },

    async releaseLocks(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_attempts')
        .set({ locked_until: null })
        .where('id', 'in', ids)
        .where('state', '=', 'pending')
        .execute();
    },

    async completeAttempt(executor: Db, id: string, patch: Partial<AttemptRow>): Promise<boolean> {
      const result = await executor
        .updateTable('webhook_attempts')
        .set({ ...patch, locked_until: null })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
