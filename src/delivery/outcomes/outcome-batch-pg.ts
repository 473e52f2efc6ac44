/**
 * A batch of outcomes written whole, for PostgreSQL (the store's `batchesOutcomes`): first as ONE
 * statement with no transaction around it (`writeAtOnce`), else in one transaction without a
 * savepoint per job (`writeWhole`). Each throws when it cannot write the batch, and nothing is
 * written then: the writer (outcome-writer.ts) falls back to the next way, down to job by job.
 *
 * It must never settle a job's promise nor notify event readers: the writer does, after the commit.
 */
import type SQLite from 'better-sqlite3';
import type { EventService } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import { type ItemOutcome, writeTransaction } from '../../platform/db/savepoints.js';
import type { Logger } from '../../platform/log.js';
import type { ClaimedJob, DeliveryStore } from '../queue/store.js';
import type { JobReport, OutcomeRecorder, SharedBatch } from './outcome-recorder.js';

export interface BatchDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly store: Pick<DeliveryStore, 'writesIn' | 'heldLeases' | 'writesAtOnce'>;
  readonly events: Pick<EventService, 'appendMany' | 'rowsOf'>;
  readonly log: Logger;
}

/**
 * The batch's outcomes and events as ONE statement, no transaction around it (PostgreSQL's
 * `writesAtOnce`): the statement locks and checks the jobs' leases itself, so a batch costs one
 * round trip. Throws when the store has no such writes, when a job's outcome needs a read
 * (NeedsTransaction), or when the statement fails: nothing is written then, and the caller
 * writes the batch in a transaction.
 */
export async function writeAtOnce(
  deps: BatchDeps,
  recorder: OutcomeRecorder,
  reports: readonly JobReport[],
  now: number,
): Promise<ItemOutcome<void>[]> {
  const { store, events, log } = deps;
  if (store.writesAtOnce === undefined) throw new Error('the store writes outcomes in transactions only');
  const writes = store.writesAtOnce();
  const shared: SharedBatch = { writes, events: [] };
  // Its writes name each job's message: a batch holding two jobs of one message needs the lock of
  // the transactional path's `heldLeases` before it writes either.
  const messages = new Set<string>();
  for (const report of reports) {
    const { job } = report.ctx;
    if (!recorder.writesOnly(report) || messages.has(job.messageId))
      throw new Error('a job of the batch needs its outcome written in a transaction');
    messages.add(job.messageId);
    await recorder.apply(NO_TRANSACTION, report, now, shared);
  }
  const jobs = reports.map((report) => report.ctx.job);
  const held = await writes.commitHeld(jobs, await events.rowsOf(shared.events));
  for (const job of jobs) if (!held.has(job.id)) warnNotRecorded(log, job);
  return reports.map(() => ({ ok: true, value: undefined }));
}

/**
 * The batch's outcomes written together, without a savepoint per job: one statement per table
 * for them all and one insert for their events. Throws when any job's outcome cannot be written
 * (the caller then writes them job by job, each in its own savepoint).
 */
export async function writeWhole(
  deps: BatchDeps,
  recorder: OutcomeRecorder,
  reports: readonly JobReport[],
  now: number,
): Promise<ItemOutcome<void>[]> {
  const { db, sqlite, store, events, log } = deps;
  return writeTransaction(db, sqlite, async (trx) => {
    const held = await store.heldLeases(
      trx,
      reports.map((report) => report.ctx.job),
    );
    const shared: SharedBatch = { writes: store.writesIn(trx), events: [] };
    for (const report of reports) {
      const { job } = report.ctx;
      if (held.has(job.id)) await recorder.apply(trx, report, now, shared);
      else warnNotRecorded(log, job);
    }
    await shared.writes.flush();
    await events.appendMany(trx, shared.events);
    return reports.map(() => ({ ok: true, value: undefined }));
  });
}

/** A job whose lease another claim took since: its outcome is that claim's now. */
export function warnNotRecorded(log: Logger, job: Pick<ClaimedJob, 'id' | 'messageId'>): void {
  log.warn(
    { job_id: job.id, message_id: job.messageId },
    'a delivery outcome was not recorded: the job was claimed again after its lease ran out',
  );
}

/** PostgreSQL's deadlock and serialization failures (SQLSTATE 40P01, 40001): the retry succeeds. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * The transaction handed to the recorder for a batch written as one statement (`writeAtOnce`):
 * there is none, and any use of it (a suppression) throws, so that the batch is written in a
 * transaction.
 */
const NO_TRANSACTION = new Proxy({} as Db, {
  get() {
    throw new Error("a write outside the outcome statement needs the outcome writer's transaction");
  },
});
