/**
 * Writes a feedback plan (`feedback.ts`) inside the processor's transaction: each DSN outcome
 * through the delivery engine's writer, each complaint through the sent-mail writer, and returns
 * the receipt's kind and the summary kept with it (what was done, what was not and why).
 */
import type { Db } from '../../platform/db/database.js';
import type { FeedbackPlan, FeedbackPorts } from './feedback.js';

export async function applyPlan(
  ports: Pick<FeedbackPorts, 'recordDsn' | 'recordComplaint'>,
  trx: Db,
  plan: FeedbackPlan,
): Promise<{ kind: string; summary: Record<string, unknown> }> {
  switch (plan.kind) {
    case 'none':
      return { kind: 'none', summary: {} };
    case 'ignored':
      return { kind: 'ignored', summary: { ignored: plan.reason, ...plan.details } };
    case 'dsn':
      for (const outcome of plan.outcomes) await ports.recordDsn(trx, outcome);
      return {
        kind: 'dsn',
        summary: {
          dsn: plan.outcomes.map((o) => ({
            message_id: o.message.messageId,
            recipient: o.recipient.email,
            outcome: o.bounce.outcome,
            status: o.bounce.status,
          })),
          unmatched: plan.unmatched,
          ...(plan.unproven.length > 0 ? { unproven: plan.unproven } : {}),
        },
      };
    case 'arf': {
      const complaints: Array<Record<string, string>> = [];
      for (const complaint of plan.complaints) {
        const { skipped } = await ports.recordComplaint(trx, complaint);
        complaints.push({
          message_id: complaint.message.messageId,
          recipient: complaint.recipient.email,
          ...(skipped ? { skipped } : {}),
        });
      }
      return { kind: 'arf', summary: { complaints, unmatched: plan.unmatched } };
    }
  }
}
