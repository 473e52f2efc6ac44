/**
 * The writes of one delivery outcome (and of a DSN the inbound listener records): recipient
 * status, the job's end or next try, the message status, soft-bounce counts and the attempt log.
 * Each is one synchronous prepared statement, to run inside the caller's transaction, which holds
 * Kysely's connection lock (outcome-writer.ts, inbound's dsn-outcome.ts); none opens a
 * transaction or takes the lock itself. Part of the delivery store (store.ts).
 */
import type { MessageStatus, RecipientStatus } from '../../platform/db/tables.js';
import type { AttemptRow, MessageRow, RecipientUpdate } from './store-rows.js';
import type { Statements } from './store-statements.js';

/** The writes, over statements prepared on first use (`statements()`). */
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
    finishJob(jobId: string, lane: string | null, lastError: string | null, now: number): void {
      statements().finishJob.run(lane, lastError, now, jobId);
    },
    rescheduleJob(
      jobId: string,
      dueAt: number,
      lane: string | null,
      lastError: string | null,
      now: number,
    ): void {
      statements().rescheduleJob.run(dueAt, lane, lastError, now, jobId);
    },
    /** Back to the queue due at `now`, its attempts not counted (a stop cut it off). */
    releaseJob(jobId: string, lane: string | null, now: number): void {
      statements().release.run(lane, now, now, jobId);
    },
    statusCounts(messageId: string): Partial<Record<RecipientStatus, number>> {
      const counts: Partial<Record<RecipientStatus, number>> = {};
      for (const row of statements().statusCounts.all(messageId)) counts[row.status] = row.n;
      return counts;
    },
    setMessageStatus(messageId: string, status: MessageStatus, now: number): boolean {
      return statements().setMessageStatus.run(status, now, messageId, status).changes > 0;
    },
    /** Counts one more soft bounce in a row; returns the count. */
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
  };
}
