/**
 * The attempt queue, a storage port (DESIGN.md §8) with two adapters chosen by the engine
 * platform/db opened: a pending attempt is due at `due_at`; a dispatcher leases it by setting
 * `locked_until`, so a process that dies mid-request leaves it due again after the lease.
 *
 * - SQLite (store-queue-sqlite.ts): one node holds every lease, attempts carry no token.
 * - PostgreSQL (store-queue-pg.ts): every node runs a dispatcher; a claim takes due attempts
 *   `FOR UPDATE SKIP LOCKED` with a lease token of its own, and releases and outcomes name the
 *   token, so a node whose lease ran out (and whose attempt another node has claimed since)
 *   changes nothing. The per-endpoint limit is counted across nodes.
 *
 * Part of the webhooks store (store.ts), which spreads it; the same tables, the same rules.
 */
import { sql } from 'kysely';
import type { Db, Engine } from '../platform/db/database.js';
import type { WebhookAttemptsTable as AttemptRow } from '../platform/db/tables.js';
import { newId } from '../platform/ids.js';
import { pgAttemptLeases } from './store-queue-pg.js';
import { sqliteAttemptLeases } from './store-queue-sqlite.js';

/** Which claim holds an attempt: PostgreSQL's token, null on SQLite (one node holds every lease). */
export interface AttemptLease {
  readonly id: string;
  readonly lease: string | null;
}

/** What the dispatcher needs to send one attempt. */
export interface ClaimedAttempt extends AttemptLease {
  readonly message_id: string;
  readonly endpoint_id: string;
  readonly attempt: number;
  readonly trigger: AttemptRow['trigger'];
  readonly replay_of: string | null;
  readonly body: string;
}

/** The engine's half of the port: leasing and the writes that must hold the lease. */
export interface AttemptLeases {
  /**
   * Leases up to `limit` due attempts of one enabled endpoint until `lockUntil`, oldest due first,
   * never leaving more than `perEndpoint` of the endpoint's attempts leased at once (on every node
   * together).
   */
  claim(
    endpointId: string,
    now: number,
    limit: number,
    lockUntil: number,
    perEndpoint: number,
  ): Promise<ClaimedAttempt[]>;
  /** When a dispatcher next has something to do (a due time or a lease running out). */
  nextWakeAt(): Promise<number | undefined>;
  /** Hands attempts back, due again at once: those whose lease is still the one named. */
  releaseLocks(attempts: readonly AttemptLease[]): Promise<void>;
  /**
   * Records a pending attempt's outcome in `executor`'s transaction, only while the lease named is
   * still the attempt's; false when it is not (another node holds it now) or the attempt is gone.
   */
  completeAttempt(executor: Db, attempt: AttemptLease, patch: Partial<AttemptRow>): Promise<boolean>;
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

export function queueQueries(db: Db, engine: Engine) {
  const leases: AttemptLeases = engine === 'postgresql' ? pgAttemptLeases(db) : sqliteAttemptLeases(db);
  return {
    ...leases,

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
  };
}
