/**
 * The writes of one delivery outcome (and of a DSN the inbound listener records): recipient
 * status, the job's end or next try, the message status, soft-bounce counts and the attempt log,
 * run in the caller's transaction (outcome-writer.ts, inbound's dsn-outcome.ts); none opens a
 * transaction itself. Part of the delivery store (store.ts).
 *
 * A port with two adapters. SQLite (here): each write is one synchronous prepared statement, run on
 * the raw handle while the caller's transaction holds Kysely's connection lock; nothing returns a
 * promise. PostgreSQL (store-writes-pg.ts): the writes are collected and sent as one statement per
 * table when a read needs them or the caller flushes, so a batch of outcomes costs a few round
 * trips instead of several per job. Callers await every call (a no-op on SQLite's values).
 */
import type { MessageStatus, RecipientStatus } from '../../platform/db/tables.js';
import type { AttemptRow, JobLease, MessageRow, RecipientRow, RecipientUpdate } from './store-rows.js';
import type { Statements } from './store-statements.js';

type Maybe<T> = T | Promise<T>;

export type RecipientCounts = Partial<Record<RecipientStatus, number>>;

export interface OutcomeWrites {
  recipient(update: RecipientUpdate, now: number): Maybe<void>;
  finishJob(job: JobLease, lane: string | null, lastError: string | null, now: number): Maybe<void>;
  rescheduleJob(
    job: JobLease,
    dueAt: number,
    lane: string | null,
    lastError: string | null,
    now: number,
  ): Maybe<void>;
  /** Back to the queue due at `now`, its attempts not counted (a stop cut it off). */
  releaseJob(job: JobLease, lane: string | null, now: number): Maybe<void>;
  /** The message's recipients counted by status, with the writes before this call in them. */
  statusCounts(messageId: string): Maybe<RecipientCounts>;
  setMessageStatus(messageId: string, status: MessageStatus, now: number): Maybe<void>;
  /** Counts one more soft bounce in a row; returns the count. */
  bumpSoftBounce(projectId: string, email: string, now: number): Maybe<number>;
  clearSoftBounce(projectId: string, email: string): Maybe<void>;
  attempt(row: AttemptRow): Maybe<void>;
  recipientById(id: string): Maybe<(RecipientRow & { message_id: string; project_id: string }) | undefined>;
  message(id: string): Maybe<MessageRow | undefined>;
  /** Sends what is still collected (PostgreSQL); nothing to do on SQLite. */
  flush(): Maybe<void>;
}

/** SQLite's writes, over statements prepared on first use (`statements()`); all synchronous. */
export function outcomeWrites(statements: () => Statements) {
  return {
    recipient(update: RecipientUpdate, now: number): void {
      statements().updateRecipient.run(
        update.status,
        update.smtpCode,
        update.smtpReply,
        update.category,
        update.deliveredAt,
        now,
        update.id,
      );
    },
    finishJob(job: JobLease, lane: string | null, lastError: string | null, now: number): void {
      statements().finishJob.run(lane, lastError, now, job.id);
    },
    rescheduleJob(
      job: JobLease,
      dueAt: number,
      lane: string | null,
      lastError: string | null,
      now: number,
    ): void {
      statements().rescheduleJob.run(dueAt, lane, lastError, now, job.id);
    },
    releaseJob(job: JobLease, lane: string | null, now: number): void {
      statements().release.run(lane, now, now, job.id);
    },
    statusCounts(messageId: string): RecipientCounts {
      const counts: RecipientCounts = {};
      for (const row of statements().statusCounts.all(messageId)) counts[row.status] = row.n;
      return counts;
    },
    setMessageStatus(messageId: string, status: MessageStatus, now: number): void {
      statements().setMessageStatus.run(status, now, messageId, status);
    },
    bumpSoftBounce(projectId: string, email: string, now: number): number {
      return statements().bumpSoftBounce.get(projectId, email, now)?.count ?? 1;
    },
    clearSoftBounce(projectId: string, email: string): void {
      statements().clearSoftBounce.run(projectId, email);
    },
    attempt(row: AttemptRow): void {
      statements().insertAttempt.run(
        row.jobId,
        row.messageId,
        row.lane,
        row.mxHost,
        row.tls ? 1 : 0,
        row.outcome,
        row.smtpCode,
        row.smtpReply,
        row.startedAt,
        row.durationMs,
      );
    },
    recipientById(id: string) {
      return statements().recipientById.get(id);
    },
    message(id: string): MessageRow | undefined {
      return statements().message.get(id);
    },
    flush(): void {},
  } satisfies OutcomeWrites;
}
