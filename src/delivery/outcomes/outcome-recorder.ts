/**
 * How one job's outcome becomes rows and events, inside the outcome writer's transaction: each
 * recipient's status and SMTP reply, its event (`email.delivered` with latency,
 * `email.delivery_delayed`, `email.bounced`, `email.failed`), suppressions (a hard bounce, N soft
 * bounces in a row, a sandbox complaint), the job's next due time or its end, the message's
 * aggregated status, and the attempt log. State and events commit together (DESIGN.md §2).
 *
 * A suppression that cannot be written never undoes the outcome: it is rolled back alone and
 * logged.
 *
 * Retries follow `retry-policy.ts`, counted from the message's due time (due-time.ts); a deferral
 * past the maximum age becomes a bounce with 5.4.7 (RFC 5321 §4.5.4.1), which is soft: the address
 * may be fine and only the server unreachable.
 *
 * A job a stop cut off between its transactions (CutOff) records only the recipients they
 * answered; the job goes back to the queue due now with its other recipients untouched.
 */
import type SQLite from 'better-sqlite3';
import type { EventService, NewEvent } from '../../events/service.js';
import type { Db } from '../../platform/db/database.js';
import type { KeyMode, RecipientStatus } from '../../platform/db/tables.js';
import type { Logger } from '../../platform/log.js';
import { type SuppressBesideOutcome, suppressBesideOutcome } from '../../suppressions/beside-outcome.js';
import type { SuppressionInput } from '../../suppressions/service.js';
import { dueTime } from '../queue/due-time.js';
import { messageStatus } from '../queue/message-status.js';
import type {
  ClaimedJob,
  DeliveryStore,
  MessageRow,
  OutcomeWrites,
  RecipientCounts,
  RecipientRow,
} from '../queue/store.js';
import { type BounceClass, countsAsSoftBounce, expired } from '../replies/bounce-classifier.js';
import { type CutOff, type Outcome, outcomeOfTransport, type PerRecipient } from '../replies/outcome.js';
import { formatSmtpReply } from '../replies/smtp-reply.js';
import {
  bouncedEvent,
  complainedEvent,
  delayedEvent,
  deliveredEvent,
  type EventContext,
  type EventDraft,
  failedEvent,
} from './outcome-events.js';
import { nextAttempt, type RetryPolicy } from './retry-policy.js';

/** Appends one event in the outcome's transaction, or collects it for the batch's one insert. */
type Emit = (event: NewEvent) => unknown;

/**
 * A batch recorded without a savepoint per job (outcome-writer.ts, PostgreSQL): the jobs' writes
 * collected in one `writes` and sent together, their events collected for one insert.
 */
export interface SharedBatch {
  readonly writes: OutcomeWrites;
  readonly events: NewEvent[];
}

/** Where suppressions go (the suppressions capability's `addWithin`). */
export interface SuppressionPort {
  addWithin(trx: Db, input: SuppressionInput): Promise<unknown>;
}

export interface RecorderDeps {
  /** SQLite's raw handle: the writer's transaction and savepoints run on it under Kysely's lock. */
  readonly sqlite: SQLite.Database;
  readonly store: Pick<DeliveryStore, 'writesIn'>;
  readonly events: Pick<EventService, 'appendWithin' | 'appendInTransaction'>;
  readonly suppressions: SuppressionPort;
  readonly retry: RetryPolicy;
  readonly softBounceLimit: number;
  readonly log: Logger;
}

/**
 * What recording reads of a job's context (the steps' `JobContext`, steps.ts, is one): named here
 * so that this room never imports the steps that drive the rooms.
 */
export interface RecordedJob {
  readonly job: ClaimedJob;
  readonly message: MessageRow | null;
  /** The recipients of this job's domain the job was to deliver. */
  readonly recipients: readonly RecipientRow[];
  /** Statuses of the message's other recipients when all of them are this job's; else null. */
  readonly settledElsewhere: readonly RecipientRow['status'][] | null;
  readonly headerTo: readonly string[];
  readonly via: { readonly mxHost: string | null; readonly secure: boolean } | null;
}

export interface JobReport {
  readonly ctx: RecordedJob;
  /** A cut-off job's recipients not in `outcomes` stay as they are, and the job is released. */
  readonly result: Outcome | PerRecipient | CutOff;
  readonly lane: string | null;
  readonly startedAt: number;
}

export class OutcomeRecorder {
  readonly #deps: RecorderDeps;
  readonly #suppressBeside: SuppressBesideOutcome;

  constructor(deps: RecorderDeps) {
    this.#deps = deps;
    this.#suppressBeside = suppressBesideOutcome(deps);
  }

  /**
   * Writes the job's outcome inside the caller's transaction; throws when one of its writes fails
   * (a suppression that fails is logged instead).
   */
  async apply(trx: Db, report: JobReport, now: number, batch?: SharedBatch): Promise<void> {
    const { ctx, result } = report;
    const { job, message } = ctx;
    const writes = batch?.writes ?? this.#deps.store.writesIn(trx);
    const emit: Emit = batch
      ? (event) => batch.events.push(event)
      : (event) => this.#deps.events.appendWithin(trx, event);
    if (message === null || ctx.recipients.length === 0) {
      await writes.finishJob(job, report.lane, null, now);
      if (!batch) await writes.flush();
      return;
    }
    const attempt = job.attempts + 1;
    const cutOff = result.kind === 'cut_off';
    const answered = cutOff ? ctx.recipients.filter((r) => result.outcomes.has(r.email)) : ctx.recipients;
    const outcomes = answered.map((r) => [r, outcomeFor(result, r)] as const);
    const firstDeferred = outcomes.find(([, o]) => o.kind === 'deferred')?.[1];
    const next =
      firstDeferred === undefined
        ? null
        : nextAttempt(this.#deps.retry, {
            attempt,
            acceptedAt: new Date(dueTime(message)),
            now: new Date(now),
            replyText: firstDeferred.reply.text,
          });
    let lastError: string | null = null;
    const statuses: RecipientStatus[] = [];
    for (const [recipient, outcome] of outcomes) {
      const event: EventContext = {
        message,
        headerTo: ctx.headerTo,
        recipient: recipient.email,
        mxHost: ctx.via?.mxHost ?? null,
        secure: ctx.via?.secure ?? false,
        attempt,
        lane: report.lane,
      };
      if (outcome.kind !== 'delivered') lastError ??= formatSmtpReply(outcome.reply);
      statuses.push(await this.#recipient(trx, writes, emit, recipient, outcome, next, event, now, job.mode));
    }
    // A stop cut the job off: the rest go back due now, as a released job (no attempt counted).
    if (cutOff) await writes.releaseJob(job, report.lane, now);
    else if (next instanceof Date)
      await writes.rescheduleJob(job, next.getTime(), report.lane, lastError, now);
    else await writes.finishJob(job, report.lane, lastError, now);
    const counts = cutOff ? await writes.statusCounts(message.id) : await this.#counts(writes, ctx, statuses);
    await writes.setMessageStatus(message.id, messageStatus(counts), now);
    const first = outcomes[0]?.[1];
    await writes.attempt({
      jobId: job.id,
      messageId: message.id,
      lane: report.lane,
      mxHost: ctx.via?.mxHost ?? null,
      tls: ctx.via?.secure ?? false,
      outcome: summarize(outcomes.map(([, o]) => o.kind)),
      smtpCode: first?.reply.code ?? null,
      smtpReply: first ? formatSmtpReply(first.reply) : null,
      startedAt: report.startedAt,
      durationMs: Math.max(0, now - report.startedAt),
    });
    if (!batch) await writes.flush();
  }

  /**
   * Whether recording the job's outcome only writes: no read of the store (the message's other
   * recipients counted, a soft bounce counted, a suppression added), so that its writes can go
   * out with the batch's in one statement (outcome-writer.ts). A job for which this says yes and
   * that reads all the same meets a write port whose reads throw, and the batch is written in a
   * transaction.
   */
  writesOnly(report: JobReport): boolean {
    const { ctx, result } = report;
    if (ctx.message === null || ctx.recipients.length === 0) return true;
    if (result.kind === 'cut_off' || ctx.settledElsewhere === null) return false;
    return ctx.recipients.every((r) => {
      const outcome = outcomeFor(result, r);
      return (
        outcome.kind === 'failed' ||
        outcome.kind === 'deferred' ||
        (outcome.kind === 'delivered' && !outcome.complained)
      );
    });
  }

  async #recipient(
    trx: Db,
    writes: OutcomeWrites,
    emit: Emit,
    recipient: RecipientRow,
    outcome: Outcome,
    next: Date | 'expired' | null,
    event: EventContext,
    now: number,
    mode: KeyMode,
  ): Promise<RecipientStatus> {
    const { message } = event;
    const update = (status: RecipientStatus, category: string | null, deliveredAt: number | null) =>
      writes.recipient(
        {
          id: recipient.id,
          status,
          smtpCode: outcome.reply.code,
          smtpReply: formatSmtpReply(outcome.reply),
          category,
          deliveredAt,
        },
        now,
      );
    const suppress = (reason: SuppressionInput['reason']) =>
      this.#suppress(trx, recipient, message, reason, now, mode);
    switch (outcome.kind) {
      case 'delivered': {
        await update(outcome.complained ? 'complained' : 'delivered', null, now);
        await writes.clearSoftBounce(message.project_id, recipient.email);
        await this.#event(emit, event, deliveredEvent(event, outcome.reply, now), now);
        if (outcome.complained) {
          await this.#event(emit, event, complainedEvent(event), now);
          await suppress('spam_complaint');
          return 'complained';
        }
        return 'delivered';
      }
      case 'deferred': {
        if (next instanceof Date) {
          await update('deferred', outcome.class.category, null);
          await this.#event(
            emit,
            event,
            delayedEvent(event, outcome.reply, outcome.class, next.getTime()),
            now,
          );
          return 'deferred';
        }
        // Retries ran out (RFC 5321 §4.5.4.1): the recipient bounces with 5.4.7.
        const cls = expired(outcome.class);
        await update('bounced', cls.category, null);
        await this.#event(emit, event, bouncedEvent(event, outcome.reply, cls, true), now);
        await this.#softBounce(writes, event, cls, suppress, now);
        return 'bounced';
      }
      case 'bounced': {
        await update('bounced', outcome.class.category, null);
        await this.#event(emit, event, bouncedEvent(event, outcome.reply, outcome.class, false), now);
        if (outcome.class.hard) await suppress('hard_bounce');
        else await this.#softBounce(writes, event, outcome.class, suppress, now);
        return 'bounced';
      }
      case 'failed': {
        await update('failed', null, null);
        await this.#event(emit, event, failedEvent(event, outcome.reason), now);
        return 'failed';
      }
    }
  }

  /**
   * Adds the address to the suppression list in the outcome's transaction. A failure (an address
   * the list cannot hold, a refused write) is rolled back alone and logged: the outcome and its
   * events are recorded all the same. False when the address was not suppressed.
   */
  #suppress(
    trx: Db,
    recipient: RecipientRow,
    message: MessageRow,
    reason: SuppressionInput['reason'],
    now: number,
    mode: KeyMode,
  ): Promise<boolean> {
    // A test send's outcome suppresses for test sends only (DESIGN.md §4a).
    return this.#suppressBeside(
      trx,
      { projectId: message.project_id, mode, email: recipient.email, reason, messageId: message.id, at: now },
      { recipient_id: recipient.id },
    );
  }

  /** Recipient counts of the message: from this job alone when it holds them all, else a query. */
  #counts(
    writes: OutcomeWrites,
    ctx: RecordedJob,
    statuses: readonly RecipientStatus[],
  ): RecipientCounts | Promise<RecipientCounts> {
    if (ctx.settledElsewhere === null) return writes.statusCounts(ctx.job.messageId);
    const counts: RecipientCounts = {};
    for (const status of [...ctx.settledElsewhere, ...statuses]) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }

  async #softBounce(
    writes: OutcomeWrites,
    event: EventContext,
    cls: BounceClass,
    suppress: (reason: SuppressionInput['reason']) => Promise<boolean>,
    now: number,
  ): Promise<void> {
    if (!countsAsSoftBounce(cls)) return;
    const count = await writes.bumpSoftBounce(event.message.project_id, event.recipient, now);
    if (count < this.#deps.softBounceLimit) return;
    // Kept when the suppression failed, so the next soft bounce tries again.
    if (await suppress('repeated_soft_bounce'))
      await writes.clearSoftBounce(event.message.project_id, event.recipient);
  }

  /** Appended in the batch's transaction (on SQLite the writer holds the connection with BEGIN IMMEDIATE). */
  async #event(emit: Emit, ctx: EventContext, draft: EventDraft, now: number): Promise<void> {
    await emit({
      projectId: ctx.message.project_id,
      type: draft.type,
      messageId: ctx.message.id,
      recipient: ctx.recipient,
      data: draft.data,
      at: now,
    });
  }
}

function outcomeFor(result: Outcome | PerRecipient | CutOff, recipient: RecipientRow): Outcome {
  if (result.kind !== 'per_recipient' && result.kind !== 'cut_off') return result;
  return (
    result.outcomes.get(recipient.email) ??
    outcomeOfTransport('protocol', 'the server gave no reply for this recipient')
  );
}

function summarize(kinds: readonly Outcome['kind'][]): string {
  const distinct = [...new Set(kinds)];
  return distinct.length === 1 ? (distinct[0] as string) : 'mixed';
}
