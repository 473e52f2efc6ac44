/**
 * With store-queue.ts (the attempt queue, a storage port whose adapters are store-queue-sqlite.ts
 * and store-queue-pg.ts), the only place that queries `webhook_endpoints`, `webhook_messages` and
 * `webhook_attempts`.
 */
import type { Db, Engine } from '../platform/db/database.js';
import type {
  KeyMode,
  WebhookAttemptsTable,
  WebhookEndpointsTable,
  WebhookMessagesTable,
} from '../platform/db/tables.js';
import { idFloor } from '../platform/ids.js';
import { queueQueries } from './store-queue.js';

export { type AttemptLease, type ClaimedAttempt, pendingAttempt } from './store-queue.js';

export type EndpointRow = WebhookEndpointsTable;
export type MessageRow = WebhookMessagesTable;
export type AttemptRow = WebhookAttemptsTable;
/** A key's view: its project's endpoints of its mode (test or live); the other mode's are absent. */
export interface EndpointScope {
  readonly projectId: string;
  readonly mode: KeyMode;
}
export type AttemptWithMessage = AttemptRow & Pick<MessageRow, 'event_id' | 'event_type' | 'body'>;

/** The webhooks store; its attempt queue is `engine`'s adapter (store-queue.ts), the engine `db` runs on by default. */
export function createWebhookStore(db: Db, engine: Engine) {
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

    /** The distinct subscription lists (JSON arrays of types) of every enabled endpoint (fan-out). */
    async enabledSubscriptions(executor: Db): Promise<string[]> {
      const rows = await executor
        .selectFrom('webhook_endpoints')
        .select('events')
        .distinct()
        .where('status', '=', 'enabled')
        .execute();
      return rows.map((row) => row.events);
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

    ...queueQueries(db, engine),

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
