/**
 * Room `delivery/queue/`, the first stage. The queue is the `delivery_jobs` table: due jobs are
 * claimed with a lease, and given back, retried or ended with their outcome; with them the message
 * and recipient rows a job carries, when a message became due (due-time.ts) and the status a
 * message takes from its recipients (message-status.ts).
 *
 * It must never decide where mail goes or what a reply means, nor open a network connection; and no
 * code outside it queries these tables.
 *
 * The delivery store is a storage port (DESIGN.md §8) with two adapters, chosen here by the engine
 * platform/db opened: SQLite's prepared statements (store-sqlite.ts, store-statements.ts, the
 * outcome writes of store-writes.ts), and PostgreSQL's queries through Kysely (store-pg.ts,
 * store-writes-pg.ts), which claim with `FOR UPDATE SKIP LOCKED` and a lease token that every write
 * of the job names. Reports that are no hot path are one Kysely path for both (store-reports.ts).
 *
 * The queue is the table. A claim is ONE statement that picks due jobs and leases them: it sets
 * `locked_until` and moves `due_at` to the same instant, so a claimed job drops out of every
 * claim's range by itself and comes back into it when the lease runs out (a crash loses nothing).
 * Each lane claims its own jobs through the (traffic, lane, due_at) index; jobs with no lane yet
 * are claimed by the router the same way (lane IS NULL).
 */
import type { Db, Store } from '../../platform/db/database.js';
import type { EventsTable, KeyMode, Traffic } from '../../platform/db/tables.js';
import { createPgDeliveryStore } from './store-pg.js';
import type { deliveryReports } from './store-reports.js';
import type {
  ClaimedJob,
  JobLease,
  MessageRow,
  RecipientRow,
  StoredPolicy,
  StoredRendering,
} from './store-rows.js';

export { inIdOrder } from './store-rows.js';

import { createSqliteDeliveryStore } from './store-sqlite.js';
import type { OutcomeWrites } from './store-writes.js';

export type * from './store-rows.js';
export type { OutcomeWrites, RecipientCounts } from './store-writes.js';

/** Outcome writes sent as one statement with their events (`DeliveryStore.writesAtOnce`). */
export interface AtOnceWrites extends OutcomeWrites {
  commitHeld(jobs: readonly JobLease[], events: readonly EventsTable[]): Promise<Set<string>>;
}

/** A job to give back to the queue, with the lane it keeps. */
export interface JobRelease extends JobLease {
  readonly lane: string | null;
}

/** What a VERP address names: the message and the recipients the bounced transaction carried. */
export interface VerpTarget {
  readonly messageId: string;
  readonly projectId: string;
  readonly recipients: readonly RecipientRow[];
}

export interface DeliveryStore extends ReturnType<typeof deliveryReports> {
  /**
   * Leases up to `limit` due jobs of one lane (or, with `lane` null, jobs not yet routed) until
   * `now + leaseMs`, oldest due first.
   */
  claim(
    traffic: Traffic,
    lane: string | null,
    limit: number,
    now: number,
    leaseMs: number,
  ): Promise<ClaimedJob[]>;
  /** Gives jobs back to the queue, due at `dueAt`, remembering their lane. */
  release(jobs: readonly JobRelease[], dueAt: number, now: number): Promise<void>;
  /** Due jobs that have no lane yet, oldest first (the router reads them without leasing them). */
  unrouted(
    traffic: Traffic,
    limit: number,
    now: number,
  ): Promise<{ id: string; domain: string; mode: KeyMode }[]>;
  /** Writes down the lane the router chose; from then on that lane claims the job. */
  assignLane(jobs: readonly { id: string; lane: string }[]): Promise<void>;
  /** The lanes that queued jobs of a traffic class are written down for, in name order. */
  queuedLanes(traffic: Traffic): Promise<string[]>;
  /**
   * Takes the lane off up to `batch` queued jobs of one lane, so that the router assigns them
   * again; returns how many. A leased job keeps its lease (and its due time, so the router only
   * reads it once the lease has run out).
   */
  unassignLane(traffic: Traffic, lane: string, batch: number, now: number): Promise<number>;
  /** Extends the lease of jobs still being worked on (those this claim still holds). */
  renew(jobs: readonly JobLease[], until: number): Promise<void>;
  /**
   * The message and all its recipients, in the order they were submitted; with `rendering`, the
   * message as rendered at admission (message_raw), when the store reads it with the message:
   * PostgreSQL's does, one query for a batch of loads, where a render thread's own lookup is a
   * round trip per message. Without it, the render thread looks the rendering up (SQLite: an
   * in-process read on the thread's connection).
   */
  load(messageId: string): Promise<{
    message: MessageRow | undefined;
    recipients: RecipientRow[];
    rendering?: StoredRendering | undefined;
  }>;
  /**
   * Whether a batch of outcomes is best written together, one statement per table for the whole
   * batch (PostgreSQL: each statement is a round trip), rather than job by job in savepoints
   * (SQLite: in-process statements, where a savepoint costs nothing).
   */
  readonly batchesOutcomes: boolean;
  /** The writes of outcomes in `trx`, the caller's transaction (store-writes.ts). */
  writesIn(trx: Db): OutcomeWrites;
  /**
   * PostgreSQL only: writes collected for one statement outside a transaction, which checks and
   * locks the jobs' leases itself and returns the jobs it wrote (store-writes-pg.ts, `commitHeld`).
   * Its reads throw (NeedsTransaction): a batch that must read is written in a transaction instead.
   */
  readonly writesAtOnce?: () => AtOnceWrites;
  /**
   * Of `jobs`, the IDs whose lease is still the one they were claimed with, held until `trx` ends
   * (PostgreSQL locks their rows, so no other node claims them meanwhile); on SQLite, one node
   * holds every lease: all of them.
   */
  heldLeases(trx: Db, jobs: readonly JobLease[]): Promise<Set<string>>;
  /** The recipient (or the recipients of the job) a VERP address names. */
  verpTarget(kind: 'recipient' | 'job', id: string): Promise<VerpTarget | null>;
  policy(domain: string): Promise<StoredPolicy | undefined>;
  savePolicy(policy: StoredPolicy): Promise<void>;
  /** Deletes up to `batch` attempt-log rows older than `cutoff` (retention); returns how many. */
  purgeAttemptsBefore(cutoff: number, batch?: number): Promise<number>;
  /** The earliest due time of each traffic class (index-only, cheap enough for a health probe). */
  oldestDue(): Promise<number | null>;
}

/**
 * The delivery store on the engine `store` runs on.
 *
 * @example const deliveryStore = createDeliveryStore(kernel.store);
 */
export function createDeliveryStore(store: Pick<Store, 'engine' | 'db' | 'sqlite'>): DeliveryStore {
  return store.engine === 'postgresql'
    ? createPgDeliveryStore(store.db)
    : createSqliteDeliveryStore(store.db, store.sqlite);
}
