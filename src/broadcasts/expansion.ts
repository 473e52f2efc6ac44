/**
 * The expansion of broadcasts into messages, as listmonk's campaign manager runs a campaign: a
 * cursor over the audience's subscribed contacts in ID order, read one batch at a time (never the
 * whole list in memory), each batch queued in ONE transaction with the broadcast's ledger and the
 * cursor moved past it. A restart resumes after the last committed batch, and the ledger's key
 * (broadcast, contact) makes a second message to one contact impossible whatever happens.
 *
 * Each message is an ordinary message of channel `marketing` (emails' `commitMarketing`), to one
 * contact, carrying its own unsubscribe link and headers (unsubscribe-headers.ts). Its subject is
 * personalised here (content.ts); its bodies are not stored: the render worker writes them from
 * the broadcast's content and the contact's values kept with the message (render-content.ts),
 * unless the message was prepared ahead of the send time (preparation.ts): then it is queued under
 * its prepared ID, and delivery sends the prepared rendering. Contacts whose address is on the
 * suppression list are left out and counted. The expansion keeps at most `queue_ahead` marketing
 * messages due ahead of delivery, so a broadcast never floods the queue nor holds the store for
 * long beside transactional sends, and a cancel stops it within one batch.
 */
import type { AudienceService } from '../audiences/service.js';
import type { Recipient } from '../audiences/store.js';
import type { Draft } from '../emails/model.js';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/http/errors.js';
import type { Logger } from '../platform/log.js';
import { contactDraft, type Prepared, prepareBroadcast } from './contact-message.js';
import { PassLoop } from './pass-loop.js';
import type { PreparationStore } from './preparation-store.js';
import { type PublishedTemplates, senderOf } from './service.js';
import type { BroadcastRow, BroadcastStore, LedgerEntry } from './store.js';
import type { UnsubscribeLinks } from './unsubscribe-headers.js';

export interface ExpansionDeps {
  readonly db: Db;
  readonly store: BroadcastStore;
  /** Messages prepared ahead of the send time (preparation.ts), queued under their prepared IDs. */
  readonly prepared?: Pick<PreparationStore, 'staged'>;
  /** Told when a broadcast is sent: its renderings left can be swept. */
  readonly onFinished?: () => void;
  readonly audiences: Pick<AudienceService, 'subscribedAfter' | 'subscribedCount'>;
  readonly suppressions: {
    findSuppressed(projectId: string, emails: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
  };
  readonly domains: { isVerified(projectId: string, name: string): Promise<boolean> };
  readonly templates: PublishedTemplates;
  readonly emails: {
    commitMarketing(drafts: readonly Draft[], within: (trx: Db) => Promise<void>): Promise<void>;
  };
  readonly events: EventService;
  /** Marketing messages queued and due now (delivery's backlog). */
  readonly backlog: () => Promise<number>;
  readonly links: UnsubscribeLinks;
  readonly batch: number;
  readonly queueAhead: number;
  readonly maxBodyBytes: number;
  readonly pollMs?: number;
  readonly log: Logger;
}

type Step = 'progress' | 'waiting' | 'idle';

/** A prepared broadcast's batch, in `expansion_batch`es (see #batch). */
const PREPARED_BATCH_FACTOR = 8;

/** How long the expansion waits before it counts a full backlog again, ms. */
const WAIT_MS = 200;

class Cancelled extends Error {}

export class Expansion {
  readonly #d: ExpansionDeps;
  readonly #prepared = new Map<string, Prepared>();
  /** Broadcasts held back until a time (the daily quota), by ID. */
  readonly #pausedUntil = new Map<string, number>();
  /**
   * Marketing messages that may still be queued before the backlog is counted again: a count
   * reads every due marketing job (up to `queue_ahead` of them), so it is made once per refill,
   * not once per batch.
   */
  #room = 0;
  readonly #loop: PassLoop;

  constructor(deps: ExpansionDeps) {
    this.#d = deps;
    // Between batches the event loop serves everything else (a yield, not a sleep). Waiting for
    // delivery to catch up, the backlog is counted again after WAIT_MS: `queue_ahead` messages
    // outlast that at any rate the engine reaches.
    const idle = deps.pollMs ?? 1000;
    this.#loop = new PassLoop(
      async () => {
        const step = await this.#pass();
        return step === 'progress' ? 0 : step === 'waiting' ? WAIT_MS : idle;
      },
      idle,
      (error) => deps.log.error({ err: error }, 'broadcast expansion pass failed'),
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Looks for work at once (a broadcast was scheduled). */
  wake(): void {
    this.#loop.wake();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One batch of each broadcast that can go on now. */
  async #pass(): Promise<Step> {
    const now = Date.now();
    let result: Step = 'idle';
    for (const row of await this.#d.store.runnable(now, 20)) {
      if (this.#loop.stopped) break;
      if ((this.#pausedUntil.get(row.id) ?? 0) > now) {
        result = result === 'idle' ? 'waiting' : result;
        continue;
      }
      const step = row.status === 'scheduled' ? await this.#begin(row) : await this.#batch(row);
      if (step === 'progress') result = 'progress';
      else if (step === 'waiting' && result === 'idle') result = 'waiting';
    }
    return result;
  }

  /** A scheduled broadcast whose time came: checked again, its content fixed, its contacts counted. */
  async #begin(row: BroadcastRow): Promise<Step> {
    const { store, log } = this.#d;
    const now = Date.now();
    const fail = async (error: string) => {
      log.warn({ broadcast_id: row.id, reason: error }, 'broadcast failed to start');
      await store.transition(row.id, ['scheduled'], {
        status: 'failed',
        last_error: error,
        finished_at: now,
        updated_at: now,
      });
      return 'progress' as const;
    };
    const sender = senderOf(row);
    if (!(await this.#d.domains.isVerified(row.project_id, sender.domain)))
      return fail(`the sender domain ${sender.domain} is no longer a verified domain of the project`);
    const content: Partial<BroadcastRow> = {};
    // A prepared broadcast's content was fixed when its preparation started (preparation.ts).
    if (row.template !== null && !preparedFor(row)) {
      try {
        const template = await this.#d.templates.publishedContent(row.project_id, row.template);
        Object.assign(content, {
          subject: template.subject,
          html: template.html,
          text: template.text,
          template_id: template.templateId,
          template_version: template.version,
        });
      } catch (error) {
        return fail(error instanceof Error ? error.message : String(error));
      }
    }
    const recipients = await this.#d.audiences.subscribedCount(row.audience_id);
    await store.transition(row.id, ['scheduled'], {
      ...content,
      status: 'sending',
      started_at: now,
      recipients,
      updated_at: now,
    });
    log.info({ broadcast_id: row.id, recipients }, 'broadcast sending started');
    return 'progress';
  }

  #prepare(row: BroadcastRow): Prepared {
    let prepared = this.#prepared.get(row.id);
    if (prepared === undefined) {
      prepared = prepareBroadcast(row);
      this.#prepared.set(row.id, prepared);
    }
    return prepared;
  }

  /** Queues the next batch of contacts of a sending broadcast, or finishes it. */
  async #batch(row: BroadcastRow): Promise<Step> {
    const d = this.#d;
    const ahead = preparedFor(row);
    if (this.#room < d.batch) {
      this.#room = d.queueAhead - (await d.backlog());
      if (this.#room <= 0) return 'waiting';
    }
    // A prepared broadcast's batch writes rows only (no message is composed): a larger one commits
    // the pages of its messages' tables once for more of them (8x: BENCHMARKS.md, "Broadcast"),
    // never past `queue_ahead` by more than an ordinary batch.
    const size = ahead ? Math.max(d.batch, Math.min(d.batch * PREPARED_BATCH_FACTOR, this.#room)) : d.batch;
    const contacts = await d.audiences.subscribedAfter(row.audience_id, row.cursor, size);
    if (contacts.length === 0) return this.#finish(row);
    const prepared = this.#prepare(row);
    const suppressed = await d.suppressions.findSuppressed(
      row.project_id,
      contacts.map((c) => c.email),
    );
    const staging = d.prepared !== undefined && ahead ? d.prepared : undefined;
    const staged = staging
      ? await staging.staged(
          row,
          contacts.map((c) => c.id),
        )
      : new Map();
    const drafts: Draft[] = [];
    const ledger: LedgerEntry[] = [];
    for (const contact of contacts) {
      if (suppressed.has(contact.email)) continue;
      // A contact changed since its message was prepared gets a message composed at delivery.
      const made = staged.get(contact.id);
      const use = made !== undefined && contact.updated_at < made.createdAt ? made.messageId : undefined;
      const draft = contactDraft(d, row, prepared, contact, use);
      if (draft === undefined) continue;
      drafts.push(draft);
      ledger.push({ contact_id: contact.id, message_id: draft.id as string });
    }
    const cursor = (contacts[contacts.length - 1] as Recipient).id;
    const counts = { queued: drafts.length, suppressed: contacts.length - drafts.length };
    const record = async (trx: Db) => {
      if (!(await d.store.recordBatch(trx, row.id, ledger, cursor, counts, Date.now())))
        throw new Cancelled();
    };
    try {
      if (drafts.length === 0) await d.db.transaction().execute(record);
      else await d.emails.commitMarketing(drafts, record);
    } catch (error) {
      if (error instanceof Cancelled) {
        this.#prepared.delete(row.id);
        return 'progress';
      }
      if (error instanceof AppError && error.code === 'rate_limited') return this.#pause(row, error);
      throw error;
    }
    this.#room -= drafts.length;
    return 'progress';
  }

  /** The daily quota is used up: the broadcast waits until it resets, and says so. */
  async #pause(row: BroadcastRow, error: AppError): Promise<Step> {
    const reset = Number(error.headers['RateLimit-Reset'] ?? error.headers['Retry-After'] ?? 60);
    this.#pausedUntil.set(row.id, Date.now() + Math.max(1, reset) * 1000);
    await this.#d.store.update(row.id, { last_error: `waiting: ${error.message}`, updated_at: Date.now() });
    return 'waiting';
  }

  /** Every contact was passed: the broadcast is sent (`broadcast.sent`, DESIGN.md §4b). */
  async #finish(row: BroadcastRow): Promise<Step> {
    const { db, store, events } = this.#d;
    const now = Date.now();
    const finished = await db.transaction().execute(async (trx) => {
      const changes = { status: 'sent' as const, finished_at: now, recipients: row.queued, updated_at: now };
      if (!(await store.transition(row.id, ['sending'], changes, trx))) return false;
      await events.append(trx, {
        projectId: row.project_id,
        type: 'broadcast.sent',
        at: now,
        data: {
          broadcast_id: row.id,
          audience_id: row.audience_id,
          name: row.name,
          recipients: row.queued,
          suppressed: row.suppressed,
          finished_at: new Date(now).toISOString(),
        },
      });
      return true;
    });
    this.#prepared.delete(row.id);
    this.#pausedUntil.delete(row.id);
    if (finished) {
      this.#d.onFinished?.();
      events.notify();
      this.#d.log.info({ broadcast_id: row.id, queued: row.queued }, 'broadcast sent');
    }
    return 'progress';
  }
}

/** Whether the broadcast's messages were prepared for its send time (preparation.ts). */
function preparedFor(row: BroadcastRow): boolean {
  return row.prepared_for !== null && row.prepared_for === row.send_at && Number(row.prepared) > 0;
}
