/**
 * Room `delivery/outcomes/`, the last stage. What happened, recorded: each job's outcome becomes
 * recipient rows, events, suppressions, the job's next try (retry-policy.ts) or its end, in one
 * transaction per batch (this file, outcome-recorder.ts, outcome-events.ts); an outcome that could
 * not be written still moves its job on (unrecorded-outcome.ts).
 *
 * It must never send mail nor decide what a reply means (replies/ does), and never commit a state
 * change without its event.
 *
 * Records what happened to jobs, in ONE transaction per batch of jobs, each job in a savepoint of
 * its own (what one job's outcome writes is outcome-recorder.ts); listeners are told after the
 * commit.
 *
 * Outcomes arriving within one turn of the event loop, or while the last batch is at most PACE_MS
 * old, share a transaction (group commit), written with relaxed durability (durability.ts): at
 * least once, never lost.
 *
 * A job whose outcome cannot be written at all is deferred instead (unrecorded-outcome.ts), so it
 * never comes back on every lease expiry. Except when the disk is full: then the batch is held in
 * memory and written again every HOLD_RETRY_MS until there is room. Deferring would send the
 * message again to every recipient who already had it, and the deferral cannot be written
 * either; held, the outcome is committed within a moment of the space coming back, while the
 * job's lease still holds. (A stop or a crash meanwhile: the job comes back when its lease runs
 * out, at least once as ever.)
 */
import type { EventService } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import { type ItemOutcome, savepointIn, writeTransaction } from '../../platform/db/savepoints.js';
import { isStorageFull } from '../../platform/db/storage-full.js';
import type { DeliveryStore } from '../queue/store.js';
import { isRetryable, warnNotRecorded, writeAtOnce, writeWhole } from './outcome-batch-pg.js';
import {
  type JobReport,
  OutcomeRecorder,
  type RecorderDeps,
  type SuppressionPort,
} from './outcome-recorder.js';
import { planUnrecorded } from './unrecorded-outcome.js';

export type { JobReport, SuppressionPort };

export interface WriterDeps extends RecorderDeps {
  readonly db: Db;
  readonly store: Pick<DeliveryStore, 'writesIn' | 'heldLeases' | 'batchesOutcomes' | 'writesAtOnce'>;
  readonly events: Pick<
    EventService,
    'appendWithin' | 'appendInTransaction' | 'appendMany' | 'rowsOf' | 'notify'
  >;
}

interface Pending {
  readonly report: JobReport;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const MAX_BATCH = 128;
const NOTIFY_MS = 50;
/**
 * NOTIFY_MS on PostgreSQL, where a notification costs a round trip of its own (pg_notify) and wakes
 * the event log's readers on every node (the webhook fan-out, the projections, the delivery
 * router), each pass of each reader several round trips: while outcomes keep coming, readers are
 * woken at most four times a second and read larger pages. `scripts/bench delivery --engine
 * postgresql` counted about 1,800 of the node's 3,200 statements per 2,000 messages in those passes
 * at 50 ms.
 */
const NOTIFY_MS_PG = 250;
/**
 * A batch starts at least this long after the one before: outcomes arriving meanwhile share its
 * transaction. A commit writes every page the batch changed to the WAL (two writes per page, the
 * same hot pages in every batch), so under load a batch per turn of the event loop (5 jobs) cost
 * more of the loop than one per 10 ms (20 jobs at 2,000 messages/s). An outcome waits at most
 * this long more; the MX has the message already.
 */
const PACE_MS = 10;
/** How often outcomes held because the disk is full are written again. */
const HOLD_RETRY_MS = 250;

export class OutcomeWriter {
  readonly #deps: WriterDeps;
  readonly #recorder: OutcomeRecorder;
  #queue: Pending[] = [];
  #scheduled = false;
  /**
   * A flush loop is running. On PostgreSQL (`batchesOutcomes`) outcomes arriving meanwhile wait for
   * that loop's next batch rather than start a loop of their own: two batches written at once only
   * wait on each other's row locks (the message history's count rows, which every batch updates).
   */
  #flushing = false;
  #flushedAt = Number.NEGATIVE_INFINITY;
  #notifiedAt = 0;
  #notifyTimer: NodeJS.Timeout | undefined;
  /** Batches whose transaction met a full disk, written again every HOLD_RETRY_MS. */
  #held: Pending[] = [];
  #holdTimer: NodeJS.Timeout | undefined;
  /** When the writer first met the full disk, until a batch commits again. */
  #fullSince: number | undefined;

  constructor(deps: WriterDeps) {
    this.#deps = deps;
    this.#recorder = new OutcomeRecorder(deps);
  }

  /**
   * Resolves once the job's outcome is committed, or its deferral when the outcome could not be
   * written; rejects only when neither could be (the job then comes back when its lease runs out).
   */
  record(report: JobReport): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ report, resolve, reject });
      if (!this.#scheduled && !this.#joinsRunningFlush()) {
        this.#scheduled = true;
        const wait = this.#flushedAt + PACE_MS - performance.now();
        if (wait <= 0) setImmediate(() => void this.#flush());
        else setTimeout(() => void this.#flush(), wait);
      }
    });
  }

  /** Whether the flush loop running now takes what was queued (PostgreSQL: one loop at a time). */
  #joinsRunningFlush(): boolean {
    return this.#flushing && this.#deps.store.batchesOutcomes;
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushedAt = performance.now();
    this.#flushing = true;
    try {
      await this.#drain();
    } finally {
      this.#flushing = false;
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      // In message order: writers on several nodes then lock the rows of the messages they share
      // in the same order, and never wait on each other in a cycle.
      const batch = this.#queue.splice(0, MAX_BATCH).sort(byMessage);
      try {
        const now = Date.now();
        // Each job in its own savepoint: one that cannot be recorded rolls back alone.
        const eachJob = () => this.#eachHeld(batch, (trx, item) => this.#applyOrDefer(trx, item.report, now));
        // On PostgreSQL the batch is first written whole (outcome-batch-pg.ts): as one statement
        // when no job's outcome needs a read, else in one transaction; should that fail, job by job.
        const reports = batch.map((item) => item.report);
        const whole = () => writeWhole(this.#deps, this.#recorder, reports, now).catch(eachJob);
        const write = this.#deps.store.batchesOutcomes
          ? () => writeAtOnce(this.#deps, this.#recorder, reports, now).catch(whole)
          : eachJob;
        // PostgreSQL may still end a transaction to break a deadlock (or a serialization
        // conflict): the batch is written again once before its jobs are deferred.
        const outcomes = await write().catch((error: unknown) => {
          if (!isRetryable(error)) throw error;
          return write();
        });
        this.#notify();
        settle(batch, outcomes);
        if (this.#fullSince !== undefined) {
          this.#deps.log.info(
            { held_ms: Date.now() - this.#fullSince },
            'the disk has room again: held delivery outcomes are being written',
          );
          this.#fullSince = undefined;
        }
      } catch (error) {
        if (isStorageFull(error)) {
          this.#hold(batch);
          continue;
        }
        this.#deps.log.error({ err: error, jobs: batch.length }, 'recording delivery outcomes failed');
        await this.#deferAll(batch, error);
      }
    }
  }

  /** The job's outcome, or, when it cannot be written, its deferral (unrecorded-outcome.ts). */
  async #applyOrDefer(trx: Db, report: JobReport, now: number): Promise<void> {
    const applied = await savepointIn(trx, this.#deps.sqlite, 'outcome', () =>
      this.#recorder.apply(trx, report, now),
    );
    if (applied.ok) return;
    // The whole batch is held instead (#hold): its transaction must not commit the others alone.
    if (isStorageFull(applied.error)) throw applied.error;
    this.#deps.log.error(
      { err: applied.error, job_id: report.ctx.job.id, message_id: report.ctx.job.messageId },
      'a delivery outcome could not be recorded; deferring the job',
    );
    await this.#defer(trx, report, applied.error, now);
  }

  /**
   * One transaction (relaxed durability on SQLite) writing each job of `batch` in a savepoint of
   * its own, once the jobs' leases are checked and held (on PostgreSQL their rows are locked): a
   * job whose lease another claim has taken since is not written (its outcome is that claim's now),
   * and settles as written, with a warning.
   */
  async #eachHeld(
    batch: readonly Pending[],
    write: (trx: Db, item: Pending) => Promise<void>,
  ): Promise<ItemOutcome<void>[]> {
    const { db, sqlite, store, log } = this.#deps;
    return writeTransaction(
      db,
      sqlite,
      async (trx) => {
        const held = await store.heldLeases(
          trx,
          batch.map((item) => item.report.ctx.job),
        );
        const outcomes: ItemOutcome<void>[] = [];
        for (const item of batch) {
          const { job } = item.report.ctx;
          if (held.has(job.id)) outcomes.push(await savepointIn(trx, sqlite, 'item', () => write(trx, item)));
          else {
            warnNotRecorded(log, job);
            outcomes.push({ ok: true, value: undefined });
          }
        }
        return outcomes;
      },
      { relaxed: true },
    );
  }

  /**
   * A batch that met a full disk: kept, and written again (with whatever arrived meanwhile) every
   * HOLD_RETRY_MS until the disk has room. Its jobs' promises stay pending, so their workers hold
   * their lane slots meanwhile: nothing else is sent that could not be recorded either.
   */
  #hold(batch: readonly Pending[]): void {
    if (this.#fullSince === undefined) {
      this.#fullSince = Date.now();
      this.#deps.log.warn(
        { jobs: batch.length },
        'the disk is full: delivery outcomes are held in memory and written once there is room',
      );
    }
    this.#held.push(...batch);
    this.#holdTimer ??= setTimeout(() => {
      this.#holdTimer = undefined;
      const held = this.#held;
      this.#held = [];
      this.#queue.unshift(...held);
      if (!this.#scheduled && !this.#joinsRunningFlush()) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    }, HOLD_RETRY_MS);
  }

  /** After a batch's transaction failed: each job's deferral, in a transaction of their own. */
  async #deferAll(batch: readonly Pending[], error: unknown): Promise<void> {
    const now = Date.now();
    try {
      const outcomes = await this.#eachHeld(batch, (trx, item) => this.#defer(trx, item.report, error, now));
      settle(batch, outcomes);
    } catch {
      // The database refuses writes: so does the claim, so the job is not sent again meanwhile.
      for (const item of batch) item.reject(error);
    }
  }

  async #defer(trx: Db, report: JobReport, error: unknown, now: number): Promise<void> {
    const { job } = report.ctx;
    const writes = this.#deps.store.writesIn(trx);
    const plan = planUnrecorded(this.#deps.retry, report.ctx, error, now);
    if (plan.kind === 'retry') await writes.rescheduleJob(job, plan.at, report.lane, plan.lastError, now);
    else await writes.finishJob(job, report.lane, plan.lastError, now);
    await writes.flush();
  }

  /**
   * Tells event readers (webhooks, analytics) about new events: at once, then at most every
   * NOTIFY_MS (NOTIFY_MS_PG on PostgreSQL) while outcomes keep coming, so a busy engine wakes them
   * per batch of batches.
   */
  #notify(): void {
    const every = this.#deps.store.batchesOutcomes ? NOTIFY_MS_PG : NOTIFY_MS;
    const wait = this.#notifiedAt + every - Date.now();
    if (wait <= 0) {
      this.#notifiedAt = Date.now();
      this.#deps.events.notify();
      return;
    }
    this.#notifyTimer ??= setTimeout(() => {
      this.#notifyTimer = undefined;
      this.#notifiedAt = Date.now();
      this.#deps.events.notify();
    }, wait);
  }
}

const byMessage = (a: Pending, b: Pending): number => {
  const x = a.report.ctx.job.messageId;
  const y = b.report.ctx.job.messageId;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Acted on once the batch has committed. */
function settle(batch: readonly Pending[], outcomes: readonly ItemOutcome<void>[]): void {
  for (const [i, item] of batch.entries()) {
    const outcome = outcomes[i] as ItemOutcome<void>;
    if (outcome.ok) item.resolve();
    else item.reject(outcome.error);
  }
}
