/**
 * Queries of scheduled messages: cancelling one, finding those due, and releasing each into the
 * delivery queue (or holding back recipients suppressed since acceptance, or failing a send that
 * may no longer go out: release-check.ts). Part of the emails store (store.ts), in a file of its
 * own for size; the same tables, the same rules.
 */
import type { Db } from '../platform/db/database.js';
import type { RecipientKind } from '../platform/db/tables.js';
import type { MessageScope } from './model.js';
import type { ReleasedMessage } from './release-events.js';
import { endUntried } from './store-end.js';

/** A recipient of a scheduled message, as its release reads it. */
export interface ScheduledRecipient {
  readonly id: string;
  readonly kind: RecipientKind;
  /** Normalized: what suppressions match. */
  readonly email: string;
  readonly display: string;
  readonly domain: string;
}

/** Cancels the message's jobs still waiting for its release. */
function cancelScheduledJobs(executor: Db, messageId: string, now: number) {
  return executor
    .updateTable('delivery_jobs')
    .set({ state: 'cancelled', updated_at: now })
    .where('message_id', '=', messageId)
    .where('state', '=', 'scheduled')
    .execute();
}

export function scheduleQueries() {
  return {
    /**
     * Cancels a still-scheduled message, its recipients and its jobs; returns what its `email.cancelled` event
     * carries, or undefined when it is not (or no longer) scheduled, or not in `scope`. Run it in
     * the transaction that appends the event.
     */
    async cancelScheduled(
      executor: Db,
      scope: MessageScope,
      id: string,
      now: number,
    ): Promise<ReleasedMessage | undefined> {
      const message = await executor
        .updateTable('messages')
        .set({ status: 'cancelled', updated_at: now })
        .where('id', '=', id)
        .where('project_id', '=', scope.projectId)
        .where('mode', '=', scope.mode)
        .where('status', '=', 'scheduled')
        .where('send_at', '>', now)
        .returning(['id', 'project_id', 'from_header', 'subject', 'tags', 'send_at', 'created_at'])
        .executeTakeFirst();
      if (!message) return undefined;
      // All of them are still `queued`: nothing of a scheduled message has been tried.
      await executor
        .updateTable('message_recipients')
        .set({ status: 'cancelled', updated_at: now })
        .where('message_id', '=', id)
        .where('status', '=', 'queued')
        .execute();
      await cancelScheduledJobs(executor, id, now);
      return message;
    },

    /** Scheduled messages whose time has come, oldest first (uses the messages_scheduled index). */
    async due(executor: Db, now: number, limit: number) {
      return executor
        .selectFrom('messages')
        .select([
          'id',
          'project_id',
          'mode',
          'from_header',
          'from_email',
          'from_domain',
          'subject',
          'tags',
          'send_at',
          'created_at',
        ])
        .where('status', '=', 'scheduled')
        .where('send_at', '<=', now)
        .orderBy('send_at')
        .limit(limit)
        .execute();
    },

    /**
     * Moves one scheduled message and its jobs to the queue, holding back the recipients in
     * `suppressed` (IDs; they become `suppressed`, and a job left with nobody to deliver to is
     * cancelled). Returns the message's new status, `suppressed` when nobody is left, or undefined
     * when it was cancelled meanwhile.
     */
    async release(
      executor: Db,
      id: string,
      now: number,
      suppressed: readonly string[] = [],
    ): Promise<'queued' | 'suppressed' | undefined> {
      const updated = await executor
        .updateTable('messages')
        .set({ status: 'queued', updated_at: now })
        .where('id', '=', id)
        .where('status', '=', 'scheduled')
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return undefined;
      if (suppressed.length === 0) {
        await executor
          .updateTable('delivery_jobs')
          .set({ state: 'queued', updated_at: now })
          .where('message_id', '=', id)
          .where('state', '=', 'scheduled')
          .execute();
        return 'queued';
      }
      await executor
        .updateTable('message_recipients')
        .set({ status: 'suppressed', updated_at: now })
        .where('message_id', '=', id)
        .where('id', 'in', suppressed)
        .execute();
      // One job per recipient domain: queued while the domain has a recipient left, else cancelled.
      await executor
        .updateTable('delivery_jobs')
        .set({ state: 'queued', updated_at: now })
        .where('message_id', '=', id)
        .where('state', '=', 'scheduled')
        .where('domain', 'in', (q) =>
          q
            .selectFrom('message_recipients')
            .select('domain')
            .where('message_id', '=', id)
            .where('status', '=', 'queued'),
        )
        .execute();
      await cancelScheduledJobs(executor, id, now);
      const left = await executor
        .selectFrom('message_recipients')
        .select('id')
        .where('message_id', '=', id)
        .where('status', '=', 'queued')
        .limit(1)
        .executeTakeFirst();
      if (left) return 'queued';
      await executor
        .updateTable('messages')
        .set({ status: 'suppressed', updated_at: now })
        .where('id', '=', id)
        .execute();
      return 'suppressed';
    },

    /**
     * A scheduled message that may no longer be sent: message and recipients `failed`, jobs
     * cancelled. False if it was cancelled (or released) meanwhile.
     */
    async failScheduled(executor: Db, id: string, now: number): Promise<boolean> {
      if (!(await endUntried(executor, id, 'scheduled', 'failed', 'failed', now))) return false;
      await cancelScheduledJobs(executor, id, now);
      return true;
    },

    /** A message's recipients in submission order (the checks and events of its release). */
    async recipientsOf(executor: Db, messageId: string): Promise<ScheduledRecipient[]> {
      return executor
        .selectFrom('message_recipients')
        .select(['id', 'kind', 'email', 'display', 'domain'])
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute();
    },
  };
}
