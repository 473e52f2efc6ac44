/**
 * The preparation of a broadcast scheduled ahead: within `broadcasts.prepare_ahead` of its send
 * time, each contact's message is composed and DKIM-signed (delivery's render threads, at marketing
 * priority) and kept in `broadcast_renderings`, dated for the send time. At the send time the
 * expansion (expansion.ts) decides who receives it exactly as it would have, reading the audience
 * then, and queues each contact's prepared message under the ID it was prepared with; delivery
 * sends the prepared rendering (delivery/compose/render-task.ts), as it sends a transactional
 * message signed at admission, so the broadcast goes out at the rate of the wire rather
 * than of the CPU. What was prepared and is not sent (a contact who left or changed since, a
 * broadcast cancelled or moved) is swept; a contact changed since its preparation is composed at
 * delivery as before.
 *
 * Restart-safe as the expansion is: a cursor over the audience in ID order, each batch's
 * renderings and the moved cursor in one transaction, only while the broadcast is still scheduled
 * for the time it was prepared for. Nothing depends on it having run: a message without a
 * prepared rendering is composed at delivery.
 */
import type { AudienceService } from '../audiences/service.js';
import type { Recipient } from '../audiences/store.js';
import type { AheadMessage } from '../delivery/compose/render-ahead.js';
import type { RawMessage } from '../delivery/compose/worker-queries.js';
import type { MessageRow } from '../delivery/queue/store-rows.js';
import { acceptedRows } from '../emails/accepted-rows.js';
import type { Draft } from '../emails/model.js';
import type { Logger } from '../platform/log.js';
import { contactDraft, type Prepared, prepareBroadcast } from './contact-message.js';
import { personalizeBodies } from './content.js';
import { PassLoop } from './pass-loop.js';
import type { PreparationStore, Staged } from './preparation-store.js';
import type { PublishedTemplates } from './service.js';
import type { BroadcastRow, BroadcastStore } from './store.js';
import type { UnsubscribeLinks } from './unsubscribe-headers.js';

export interface PreparationDeps {
  readonly store: Pick<BroadcastStore, 'transition'>;
  readonly prepared: PreparationStore;
  readonly audiences: Pick<AudienceService, 'subscribedAfter'>;
  readonly suppressions: {
    findSuppressed(projectId: string, emails: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
  };
  readonly templates: PublishedTemplates;
  /** Delivery's render threads (delivery/compose/render-ahead.ts). */
  readonly render: (message: AheadMessage) => Promise<RawMessage | undefined>;
  readonly links: UnsubscribeLinks;
  /** How long before its send time a broadcast is prepared, ms; 0 turns preparation off. */
  readonly leadMs: number;
  readonly batch: number;
  readonly maxBodyBytes: number;
  readonly pollMs?: number;
  readonly log: Logger;
}

/** A broadcast's row (its content fixed) and what its messages share. */
interface Share {
  readonly row: BroadcastRow;
  readonly prepared: Prepared;
}

/** How often the renderings nobody will send are looked for, ms (and at once when told). */
const SWEEP_MS = 60_000;

export class Preparation {
  readonly #d: PreparationDeps;
  readonly #shared = new Map<string, { sendAt: number; prepared: Prepared }>();
  readonly #loop: PassLoop;
  #sweepDue = 0;

  constructor(deps: PreparationDeps) {
    this.#d = deps;
    const idle = deps.pollMs ?? 1000;
    this.#loop = new PassLoop(
      async () => ((await this.#pass()) ? 0 : idle),
      idle,
      (error) => deps.log.error({ err: error }, 'broadcast preparation pass failed'),
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Looks for work at once (a broadcast was scheduled, moved, cancelled or sent). */
  wake(sweep = false): void {
    if (sweep) this.#sweepDue = 0;
    this.#loop.wake();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One batch of the broadcast due first, and a sweep when one is due; true when work was done. */
  async #pass(): Promise<boolean> {
    const now = Date.now();
    if (now >= this.#sweepDue) {
      const removed = await this.#d.prepared.sweep();
      this.#sweepDue = removed > 0 ? 0 : now + SWEEP_MS;
      if (removed > 0) return true;
    }
    if (this.#d.leadMs <= 0) return false;
    const [row] = await this.#d.prepared.preparable(now, this.#d.leadMs, 1);
    if (row === undefined) {
      // Nothing left to prepare: what was kept for broadcasts cancelled or moved meanwhile goes.
      this.#shared.clear();
      return false;
    }
    await this.#batch(row);
    return true;
  }

  /** What the broadcast's messages share, its content fixed when its preparation starts. */
  async #shareOf(row: BroadcastRow): Promise<Share | undefined> {
    const sendAt = row.send_at as number;
    const kept = this.#shared.get(row.id);
    if (kept !== undefined && kept.sendAt === sendAt && row.prepared_for === sendAt)
      return { row, prepared: kept.prepared };
    let current = row;
    if (row.template !== null && (row.prepared_for !== sendAt || row.template_version === null)) {
      // The published version is fixed now, as sending would fix it: the prepared messages and
      // those composed at delivery must be the same content (expansion.ts keeps it).
      const template = await this.#d.templates.publishedContent(row.project_id, row.template);
      const content = {
        subject: template.subject,
        html: template.html,
        text: template.text,
        template_id: template.templateId,
        template_version: template.version,
      };
      if (!(await this.#d.store.transition(row.id, ['scheduled'], content))) return undefined;
      current = { ...row, ...content };
    }
    const prepared = prepareBroadcast(current);
    this.#shared.set(row.id, { sendAt, prepared });
    return { row: current, prepared };
  }

  /** Prepares the next batch of contacts of `row`, or marks its preparation done. */
  async #batch(scheduled: BroadcastRow): Promise<void> {
    const d = this.#d;
    const fresh = scheduled.prepared_for !== scheduled.send_at;
    const cursor = fresh ? null : scheduled.prepare_cursor;
    let share: Share | undefined;
    try {
      share = await this.#shareOf(scheduled);
    } catch (error) {
      // A template that cannot be read now is left to the send time, which reports it.
      d.log.warn({ broadcast_id: scheduled.id, err: error }, 'broadcast not prepared ahead');
      await d.prepared.stage(scheduled, [], cursor ?? '', true, Date.now());
      return;
    }
    if (share === undefined) return;
    const { row, prepared } = share;
    // The renderings' time: a contact changed at or after it is composed at delivery instead.
    const readAt = Date.now();
    const contacts = await d.audiences.subscribedAfter(row.audience_id, cursor, d.batch);
    if (contacts.length === 0) {
      await d.prepared.stage(row, [], cursor ?? '', true, Date.now());
      this.#shared.delete(row.id);
      d.log.info(
        { broadcast_id: row.id, prepared: row.prepared },
        'broadcast prepared ahead of its send time',
      );
      return;
    }
    const suppressed = await d.suppressions.findSuppressed(
      row.project_id,
      contacts.map((c) => c.email),
    );
    const work = contacts
      .filter((contact) => !suppressed.has(contact.email))
      .map((contact) => this.#renderOne(row, prepared, contact));
    const rendered = (await Promise.all(work)).filter((r): r is Staged => r !== undefined);
    const next = (contacts[contacts.length - 1] as Recipient).id;
    await d.prepared.stage(row, rendered, next, false, readAt);
  }

  /** One contact's message, composed and signed; undefined when it cannot be (left to the send). */
  async #renderOne(row: BroadcastRow, prepared: Prepared, contact: Recipient): Promise<Staged | undefined> {
    const d = this.#d;
    const draft = contactDraft(d, row, prepared, contact);
    if (draft === undefined) return undefined;
    try {
      const bodies = personalizeBodies(prepared.parsed, draft.personalization ?? {});
      const raw = await d.render({
        row: messageRowOf(draft, row.send_at as number),
        to: draft.recipients.map((r) => r.mailbox.display),
        html: bodies.html,
        text: bodies.text,
      });
      if (raw === undefined) return undefined;
      return { contactId: contact.id, messageId: draft.id as string, ...raw };
    } catch (error) {
      d.log.warn(
        { broadcast_id: row.id, contact_id: contact.id, err: error },
        'broadcast message not prepared; it is composed at delivery',
      );
      return undefined;
    }
  }
}

/** The message's row as the send path will write it, dated for the send time. */
function messageRowOf(draft: Draft, sendAt: number): MessageRow {
  const { message, status } = acceptedRows(draft);
  return { ...message, id: draft.id as string, status, send_at: sendAt, created_at: sendAt };
}
