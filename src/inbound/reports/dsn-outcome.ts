/**
 * Writes a DSN's verdict for one recipient with the delivery engine's own pieces, so that an
 * asynchronous bounce looks exactly like a synchronous one: the delivery store's recipient and
 * message-status writes and soft-bounce counter (`src/delivery/queue/store.ts`), its event builders
 * (`email.bounced`, `email.delivery_delayed`, `src/delivery/outcomes/outcome-events.ts`) and its
 * suppression rules (hard bounce → `hard_bounce`; `soft_bounce_limit` soft bounces in a row that
 * count, per `countsAsSoftBounce` → `repeated_soft_bounce`).
 *
 * Two differences follow from the DSN arriving after the hand-off: a `delayed` DSN only appends
 * `email.delivery_delayed` (the reporting MTA retries, not Posthorn, so the recipient's status is
 * left alone, with `next_attempt_at` from Will-Retry-Until when given), and a recipient already
 * bounced or complained is not bounced twice.
 */

import {
  bouncedEvent,
  delayedEvent,
  type EventContext,
  type EventDraft,
} from '../../delivery/outcomes/outcome-events.js';
import { messageStatus as messageStatusOf } from '../../delivery/queue/message-status.js';
import type { DeliveryStore } from '../../delivery/queue/store.js';
import { countsAsSoftBounce } from '../../delivery/replies/bounce-classifier.js';
import { parseSmtpReply, type SmtpReply, smtpReply } from '../../delivery/replies/smtp-reply.js';
import type { EventService } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import type { SuppressBesideOutcome } from '../../suppressions/beside-outcome.js';
import type { DsnOutcome } from './feedback.js';

export interface DsnWriterDeps {
  readonly store: Pick<DeliveryStore, 'writesIn'>;
  readonly events: Pick<EventService, 'append'>;
  /** Suppressions beside the outcome: one that fails never undoes it (suppressions/beside-outcome.ts). */
  readonly suppress: SuppressBesideOutcome;
  readonly softBounceLimit: number;
}

/** The reply a DSN reports: its Diagnostic-Code when that is an SMTP reply, else one written from the Status. */
export function dsnReply(outcome: Pick<DsnOutcome, 'report' | 'bounce'>): SmtpReply {
  const diagnostic = outcome.report.diagnosticCode
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/^\s*[\w.-]+\s*;\s*/, '')
    .trim();
  const parsed = parseSmtpReply(diagnostic);
  if (parsed) return parsed;
  const code = outcome.bounce.outcome === 'deferred' ? 451 : 550;
  return smtpReply(
    code,
    `${outcome.bounce.status} ${diagnostic || 'reported by a delivery status notification'}`,
  );
}

export function createDsnWriter(deps: DsnWriterDeps) {
  return async function recordDsn(trx: Db, outcome: DsnOutcome): Promise<void> {
    const writes = deps.store.writesIn(trx);
    const message = await writes.message(outcome.message.messageId);
    const recipient = await writes.recipientById(outcome.recipient.id);
    if (!message || !recipient) return;
    const reply = dsnReply(outcome);
    const at = outcome.at;
    const ctx: EventContext = {
      message,
      headerTo: outcome.message.to,
      recipient: recipient.email,
      mxHost: outcome.report.remoteMta ?? outcome.reportingMta,
      secure: false,
      attempt: Math.max(1, recipient.attempts),
    };
    const append = (draft: EventDraft) =>
      deps.events.append(trx, {
        projectId: message.project_id,
        type: draft.type,
        messageId: message.id,
        recipient: recipient.email,
        data: { ...draft.data, source: 'dsn' },
        at,
      });

    if (outcome.bounce.outcome === 'deferred') {
      const retryUntil = Date.parse(outcome.report.willRetryUntil ?? '');
      await append(delayedEvent(ctx, reply, outcome.bounce, Number.isNaN(retryUntil) ? at : retryUntil));
      return;
    }
    if (recipient.status === 'bounced' || recipient.status === 'complained') return;
    await writes.recipient(
      {
        id: recipient.id,
        status: 'bounced',
        smtpCode: reply.code,
        smtpReply: outcome.report.diagnosticCode || `${reply.code} ${outcome.bounce.status}`,
        category: outcome.bounce.category,
        deliveredAt: null,
      },
      at,
    );
    await writes.setMessageStatus(message.id, messageStatusOf(await writes.statusCounts(message.id)), at);
    await append(bouncedEvent(ctx, reply, outcome.bounce, false));
    const suppress = (reason: 'hard_bounce' | 'repeated_soft_bounce') =>
      deps.suppress(
        trx,
        { projectId: message.project_id, email: recipient.email, reason, messageId: message.id, at },
        { recipient_id: recipient.id, source: 'dsn' },
      );
    if (outcome.bounce.hard) {
      await suppress('hard_bounce');
    } else if (countsAsSoftBounce(outcome.bounce)) {
      const count = await writes.bumpSoftBounce(message.project_id, recipient.email, at);
      if (count >= deps.softBounceLimit) {
        await suppress('repeated_soft_bounce');
        await writes.clearSoftBounce(message.project_id, recipient.email);
      }
    }
    await writes.flush();
  };
}
