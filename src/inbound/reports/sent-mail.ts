/**
 * The sent messages that bounces and complaints are about: reading them from the message
 * pipeline's rows (`messages`, `message_recipients`, migration 0002), and writing a complaint: recipient `complained`, the message's status
 * recomputed, `email.complained`, and suppression `spam_complaint`, in the caller's transaction.
 */
import { messageStatus } from '../../delivery/queue/message-status.js';
import type { EventService } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import type { RecipientStatus } from '../../platform/db/tables.js';
import type { SuppressBesideOutcome } from '../../suppressions/beside-outcome.js';
import type { ComplaintOutcome } from './feedback.js';

export interface SentMessage {
  readonly projectId: string;
  readonly messageId: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly recipients: ReadonlyArray<{
    readonly id: string;
    readonly email: string;
    readonly status: RecipientStatus;
  }>;
}

/** Statuses a complaint does not change: already complained, or the mail never arrived. */
const NOT_COMPLAINABLE: ReadonlySet<RecipientStatus> = new Set([
  'complained',
  'bounced',
  'suppressed',
  'failed',
  'cancelled',
]);

export function createSentMail(deps: {
  readonly db: Db;
  readonly events: EventService;
  /** Suppressions beside the outcome: one that fails never undoes it (suppressions/beside-outcome.ts). */
  readonly suppress: SuppressBesideOutcome;
}) {
  const { db } = deps;

  async function recipientsOf(executor: Db, messageId: string) {
    return executor
      .selectFrom('message_recipients')
      .select(['id', 'email', 'status', 'kind', 'domain'])
      .where('message_id', '=', messageId)
      .orderBy('id')
      .execute();
  }

  /** Recomputes and stores a message's status from its recipients (DESIGN.md §4). */
  async function refreshStatus(trx: Db, messageId: string, at: number): Promise<void> {
    // A write that changes nothing, to hold the message's row first: on PostgreSQL a delivery
    // outcome of the same message committing on another node then counts before or after this
    // one, never beside it (the last writer would store a status from stale counts).
    await trx
      .updateTable('messages')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', messageId)
      .execute();
    const rows = await trx
      .selectFrom('message_recipients')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('message_id', '=', messageId)
      .groupBy('status')
      .execute();
    const counts: Partial<Record<RecipientStatus, number>> = {};
    for (const row of rows) counts[row.status] = Number(row.n);
    await trx
      .updateTable('messages')
      .set({ status: messageStatus(counts), updated_at: at })
      .where('id', '=', messageId)
      .where('status', '<>', 'cancelled')
      .execute();
  }

  return {
    async sentMessage(messageId: string): Promise<SentMessage | undefined> {
      const message = await db
        .selectFrom('messages')
        .select(['id', 'project_id', 'from_header', 'subject', 'tags'])
        .where('id', '=', messageId)
        .executeTakeFirst();
      if (!message) return undefined;
      const recipients = await recipientsOf(db, messageId);
      return {
        projectId: message.project_id,
        messageId: message.id,
        from: message.from_header,
        to: recipients.filter((r) => r.kind === 'to').map((r) => r.email),
        subject: message.subject,
        tags: JSON.parse(message.tags) as Record<string, string>,
        recipients: recipients.map((r) => ({ id: r.id, email: r.email, status: r.status })),
      };
    },

    /**
     * RFC 5965 complaint: the recipient complained, the event, and the suppression (one
     * transaction). Only a recipient the mail may have reached can complain: one already
     * `complained` (a repeated report) or `bounced`, `suppressed`, `failed` or `cancelled` (never received it)
     * is left as it is, with no event and no suppression; the reason is returned.
     */
    async recordComplaint(trx: Db, outcome: ComplaintOutcome): Promise<{ skipped?: string }> {
      const { message, recipient, report, at } = outcome;
      const current = await trx
        .selectFrom('message_recipients')
        .select('status')
        .where('id', '=', recipient.id)
        .executeTakeFirst();
      if (!current) return { skipped: 'recipient not found' };
      if (NOT_COMPLAINABLE.has(current.status)) return { skipped: `recipient already ${current.status}` };
      await trx
        .updateTable('message_recipients')
        .set({ status: 'complained', updated_at: at })
        .where('id', '=', recipient.id)
        .execute();
      await refreshStatus(trx, message.messageId, at);
      await deps.events.append(trx, {
        projectId: message.projectId,
        type: 'email.complained',
        messageId: message.messageId,
        recipient: recipient.email,
        at,
        data: {
          email_id: message.messageId,
          from: message.from,
          to: message.to,
          subject: message.subject,
          tags: message.tags,
          recipient: recipient.email,
          complaint: {
            feedback_type: report.feedbackType,
            user_agent: report.userAgent,
            arrival_date: report.arrivalDate,
            source_ip: report.sourceIp,
            reported_domain: report.reportedDomain,
          },
        },
      });
      await deps.suppress(
        trx,
        {
          projectId: message.projectId,
          email: recipient.email,
          reason: 'spam_complaint',
          messageId: message.messageId,
          at,
        },
        { recipient_id: recipient.id, source: 'complaint' },
      );
      return {};
    },

    refreshStatus,
  };
}

export type SentMail = ReturnType<typeof createSentMail>;
