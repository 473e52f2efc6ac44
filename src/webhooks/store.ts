/**
 * The only file that queries `webhook_endpoints`, `webhook_messages` and `webhook_attempts`.
 * Attempts are the queue: a pending attempt is due at `due_at`; the dispatcher leases it by
 * setting `locked_until`, so a process that dies mid-request leaves it due again after the lease.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  WebhookAttemptsTable,
  WebhookEndpointsTable,
  WebhookMessagesTable,
  KeyMode,
} from '../platform/db/tables.js';
import { idFloor, newId } from '../platform/ids.js';

export type EndpointRow = WebhookEndpointsTable;
export type MessageRow = WebhookMessagesTable;
export type AttemptRow = WebhookAttemptsTable;
/** A key's view: its project's endpoints of its mode (test or live); the other mode's are absent. */
export interface EndpointScope {
  readonly projectId: string;
  readonly mode: KeyMode;
}
export type AttemptWithMessage = AttemptRow & Pick<MessageRow, 'event_id' | 'event_type' | 'body'>;

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

export function createWebhookStore(db: Db) {
  return {
    async insertEndpoint(row: EndpointRow): Promise<void> {
      await db.insertInto('webhook_endpoints').values(row).execute();
    },

    /** Any one sealed signing secret: the boot checks that the master key opens it. */
    async anySealedSecret(): Promise<Pick<EndpointRow, 'id' | 'secret_sealed'> | undefined> {
      return db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed']).limit(1).executeTakeFirst();
    },

    async findEndpoint(scope: EndpointScope, id: string): Promise<EndpointRow | undefined> {
      return db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', id)
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode)
        .executeTakeFirst();
    },

    async endpointById(id: string): Promise<EndpointRow | undefined> {
      return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async listEndpoints(
      scope: EndpointScope,
      limit: number,
      after: string | undefined,
    ): Promise<EndpointRow[]> {
      let query = db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode);
      if (after) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },

    async updateEndpoint(id: string, patch: Partial<EndpointRow>, executor: Db = db): Promise<void> {
      await executor.updateTable('webhook_endpoints').set(patch).where('id', '=', id).execute();
    },

    async deleteEndpoint(scope: EndpointScope, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('webhook_endpoints')
        .where('id', '=', id)
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Enabled endpoints of these projects (fan-out). */
    async enabledEndpoints(executor: Db, projectIds: readonly string[]): Promise<EndpointRow[]> {
      if (projectIds.length === 0) return [];
      return executor
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('project_id', 'in', projectIds)
        .where('status', '=', 'enabled')
        .execute();
    },

    async insertMessages(executor: Db, messages: readonly MessageRow[], attempts: readonly AttemptRow[]) {
      // Chunked: SQLite caps the number of bound parameters of one statement.
      for (let i = 0; i < messages.length; i += 100) {
        await executor
          .insertInto('webhook_messages')
          .values(messages.slice(i, i + 100))
          .execute();
      }
      for (let i = 0; i < attempts.length; i += 50) {
        await executor
          .insertInto('webhook_attempts')
          .values(attempts.slice(i, i + 50))
          .execute();
      }
    },

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
        .select(sql<number | null>`min(max(a.due_at, coalesce(a.locked_until, 0)))`.as('at'))
        .where('a.state', '=', 'pending')
        .where('e.status', '=', 'enabled')
        .executeTakeFirst();
      return row?.at ?? undefined;
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

    /** Attempts of an endpoint, newest first, after (older than) the attempt `after`. */
    async listAttempts(
      endpointId: string,
      limit: number,
      after: string | undefined,
    ): Promise<AttemptWithMessage[]> {
      let query = db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
        .selectAll('a')
        .select(['m.event_id', 'm.event_type', 'm.body'])
        .where('a.endpoint_id', '=', endpointId);
      if (after) query = query.where('a.id', '<', after);
      return query.orderBy('a.id', 'desc').limit(limit).execute();
    },

    async findAttempt(endpointId: string, id: string): Promise<AttemptWithMessage | undefined> {
      return db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
        .selectAll('a')
        .select(['m.event_id', 'm.event_type', 'm.body'])
        .where('a.endpoint_id', '=', endpointId)
        .where('a.id', '=', id)
        .executeTakeFirst();
    },

    /**
     * Deletes messages (and, by cascade, their attempts) created before `cutoff`; a batch at a time.
     * A message with an attempt still pending stays whatever its age: its retries outlast a short
     * retention window (the default schedule spans 27.6 h), and a disabled endpoint's pending
     * attempts must still be there to resume when it is re-enabled. It goes once they are done.
     */
    async purgeBefore(cutoff: number, batch = 2000): Promise<number> {
      const bound = idFloor('whm', cutoff);
      const result = await db
        .deleteFrom('webhook_messages')
        .where('id', 'in', (q) =>
          q
            .selectFrom('webhook_messages as m')
            .select('m.id')
            .where('m.id', '<', bound)
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('webhook_attempts as a')
                    .select('a.id')
                    .whereRef('a.message_id', '=', 'm.id')
                    .where('a.state', '=', 'pending'),
                ),
              ),
            )
            .orderBy('m.id')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
