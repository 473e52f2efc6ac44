/**
 * The event a recipient's outcome appends (DESIGN.md §4: `data` carries `email_id`, `from`, `to`,
 * `subject`, `tags` and the event's own object). One event per recipient, so a webhook receiver
 * learns exactly who was delivered, delayed or bounced; the object names the recipient.
 */
import type { EventType } from '../../events/types.js';
import type { BounceClass } from '../replies/bounce-classifier.js';
import { dueTime } from '../queue/due-time.js';
import { formatSmtpReply, type SmtpReply } from '../replies/smtp-reply.js';
import type { MessageRow } from '../queue/store.js';

export interface EventContext {
  readonly message: MessageRow;
  readonly headerTo: readonly string[];
  readonly recipient: string;
  readonly mxHost: string | null;
  readonly secure: boolean;
  /** The attempt this was (1 for the first). */
  readonly attempt: number;
  /** The provider lane that carried it (analytics groups by it); absent for asynchronous DSNs. */
  readonly lane?: string | null;
}

export interface EventDraft {
  readonly type: EventType;
  readonly data: Record<string, unknown>;
}

function base(ctx: EventContext): Record<string, unknown> {
  let tags: unknown = {};
  try {
    tags = JSON.parse(ctx.message.tags);
  } catch {
    // Stored by the send API as JSON; an unreadable value is left out rather than failing the outcome.
  }
  return {
    email_id: ctx.message.id,
    from: ctx.message.from_header,
    to: ctx.headerTo,
    subject: ctx.message.subject,
    tags,
    ...(ctx.lane ? { lane: ctx.lane } : {}),
  };
}

export function deliveredEvent(ctx: EventContext, reply: SmtpReply, at: number): EventDraft {
  return {
    type: 'email.delivered',
    data: {
      ...base(ctx),
      delivery: {
        recipient: ctx.recipient,
        mx_host: ctx.mxHost,
        tls: ctx.secure,
        smtp_response: formatSmtpReply(reply),
        attempt: ctx.attempt,
        // Measured from acceptance, or from the due time of a scheduled send.
        latency_ms: Math.max(0, at - dueTime(ctx.message)),
      },
    },
  };
}

export function delayedEvent(
  ctx: EventContext,
  reply: SmtpReply,
  cls: BounceClass,
  nextAt: number,
): EventDraft {
  return {
    type: 'email.delivery_delayed',
    data: {
      ...base(ctx),
      delay: {
        recipient: ctx.recipient,
        mx_host: ctx.mxHost,
        smtp_response: formatSmtpReply(reply),
        status: cls.status,
        category: cls.category,
        attempt: ctx.attempt,
        next_attempt_at: new Date(nextAt).toISOString(),
      },
    },
  };
}

export function bouncedEvent(
  ctx: EventContext,
  reply: SmtpReply,
  cls: BounceClass,
  expired: boolean,
): EventDraft {
  return {
    type: 'email.bounced',
    data: {
      ...base(ctx),
      bounce: {
        recipient: ctx.recipient,
        type: cls.hard ? 'hard' : 'soft',
        category: cls.category,
        status: cls.status,
        smtp_response: formatSmtpReply(reply),
        mx_host: ctx.mxHost,
        attempt: ctx.attempt,
        expired,
      },
    },
  };
}

export function failedEvent(ctx: EventContext, reason: string): EventDraft {
  return { type: 'email.failed', data: { ...base(ctx), failure: { recipient: ctx.recipient, reason } } };
}

export function complainedEvent(ctx: EventContext): EventDraft {
  return {
    type: 'email.complained',
    data: {
      ...base(ctx),
      complaint: { recipient: ctx.recipient, feedback_type: 'abuse', source: 'sandbox' },
    },
  };
}
