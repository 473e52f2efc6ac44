/**
 * Agent sends held for a person's approval (spec §3.2, §4.8): a message an OAuth client sent is
 * recorded `awaiting_approval`, with its recipients, body and idempotency record but no delivery
 * jobs and no `email.sent` (admission.ts). The approvals capability decides; this module carries
 * the decision out on the message, in the decider's transaction (`within` writes the approval's
 * own row, and throwing there undoes both):
 * - approve: the checks a send passes run again now, in a send's order (suspended project 403,
 *   sender 403, suppressed recipient 422), and a refusal is the approver's answer with nothing
 *   changed; then the message is queued exactly as a send is: its jobs, status `queued` (or
 *   `scheduled` while its `send_at` is ahead), `email.sent` (or `email.scheduled`), and the
 *   delivery's admission stage told. Quotas were counted when the client sent it.
 * - reject (a member's, or expiry): status `rejected`, recipients `cancelled`, `email.rejected`.
 * It never delivers: the delivery engine claims the jobs.
 */
import type { EventService, NewEvent } from '../events/service.js';
import type { Config } from '../platform/config/schema.js';
import type { Db } from '../platform/db/database.js';
import { checkNotSuspended, checkSuppression, createSenderCheck, type SendPorts } from './checks.js';
import type { MessageRef } from './model.js';
import { messageEvent } from './release-events.js';
import type { EmailStore, HeldContent, HeldMessage, ScheduledRecipient } from './store.js';

export type { HeldContent } from './store.js';

export interface HeldDeps {
  readonly db: Db;
  readonly store: EmailStore;
  readonly events: EventService;
  readonly ports: SendPorts;
  readonly sandbox: Config['sandbox'];
  /** Tells delivery's admission stage of live messages now queued (admission.ts `announce`). */
  readonly announce: (ids: readonly string[]) => void;
}

export interface Rejection {
  readonly reason: 'rejected' | 'expired';
  readonly note: string | null;
}

/** The outcome of an approval on its message. */
export type Released = { readonly kind: 'queued'; readonly ref: MessageRef } | { readonly kind: 'not_held' };

function eventOf(
  type: NewEvent['type'],
  message: HeldMessage,
  recipients: readonly ScheduledRecipient[],
  now: number,
  extra: Record<string, unknown>,
): NewEvent {
  return messageEvent(type, message, recipients, now, {
    created_at: new Date(message.created_at).toISOString(),
    ...extra,
  });
}

export function createHeldSends(deps: HeldDeps) {
  const { db, store, events, ports } = deps;
  const checkSender = createSenderCheck(deps.sandbox, ports);

  /** The checks of a send, again, on the message as it was recorded (throws the refusal). */
  async function checkAgain(message: HeldMessage, recipients: readonly ScheduledRecipient[]): Promise<void> {
    const project = await ports.project(message.project_id);
    if (project === undefined) throw new Error(`project ${message.project_id} of a held message is gone`);
    checkNotSuspended({ projectStatus: project.status });
    const input = {
      projectId: message.project_id,
      mode: message.mode,
      from: { email: message.from_email, domain: message.from_domain },
      recipients: recipients.map((r) => ({ email: r.email, mailbox: { email: r.display } })),
    };
    await checkSender(
      { ...input, organizationId: project.organizationId, projectStatus: project.status },
      input,
    );
    await checkSuppression(ports, input);
  }

  return {
    /** Queues an approved held message; `not_held` when it is no longer awaiting approval. */
    async release(
      projectId: string,
      messageId: string,
      within: (trx: Db) => Promise<void>,
    ): Promise<Released> {
      const message = await store.heldMessage(db, projectId, messageId);
      if (message?.status !== 'awaiting_approval') return { kind: 'not_held' };
      const recipients = await store.recipientsOf(db, messageId);
      // Outside the transaction: the checks ask other services, which use the connection it would hold.
      await checkAgain(message, recipients);
      const now = Date.now();
      const status = await db.transaction().execute(async (trx) => {
        const queued = await store.queueHeld(trx, message, now);
        if (queued === false) return false;
        const scheduledAt =
          queued === 'scheduled' ? { scheduled_at: new Date(message.send_at as number).toISOString() } : {};
        const type = queued === 'scheduled' ? 'email.scheduled' : 'email.sent';
        await events.append(trx, eventOf(type, message, recipients, now, scheduledAt));
        await within(trx);
        return queued;
      });
      if (status === false) return { kind: 'not_held' };
      events.notify();
      if (status === 'queued' && message.mode === 'live') deps.announce([messageId]);
      return { kind: 'queued', ref: { id: messageId, status, createdAt: message.created_at } };
    },

    /** Rejects a held message; false when it is no longer awaiting approval. */
    async reject(
      projectId: string,
      messageId: string,
      rejection: Rejection,
      within: (trx: Db) => Promise<void>,
    ): Promise<boolean> {
      const message = await store.heldMessage(db, projectId, messageId);
      if (message?.status !== 'awaiting_approval') return false;
      const recipients = await store.recipientsOf(db, messageId);
      const now = Date.now();
      const rejected = await db.transaction().execute(async (trx) => {
        if (!(await store.rejectHeld(trx, messageId, now))) return false;
        const detail = {
          rejection: {
            reason: rejection.reason,
            ...(rejection.note === null ? {} : { note: rejection.note }),
            rejected_at: new Date(now).toISOString(),
          },
        };
        await events.append(trx, eventOf('email.rejected', message, recipients, now, detail));
        await within(trx);
        return true;
      });
      if (rejected) events.notify();
      return rejected;
    },

    /** What the project's messages `ids` send, keyed by message ID. */
    async contents(projectId: string, ids: readonly string[]): Promise<Map<string, HeldContent>> {
      const rows = await store.heldContents(db, projectId, ids);
      return new Map(rows.map((row) => [row.id, row]));
    },
  };
}

export type HeldSends = ReturnType<typeof createHeldSends>;
