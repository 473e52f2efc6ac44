/**
 * Admission of a send, the steps `send` and `sendBatch` share: a validated request becomes a Draft
 * (a named template rendered here), passes the checks (checks.ts), reserves its quota and
 * rate-limit slots, and is written in ONE transaction with its recipients, its delivery jobs, its
 * idempotency record and its `email.sent` / `email.scheduled` event; listeners are told after the
 * commit. An agent send its project holds for approval (`SendHolds`) is written with its approval
 * record instead of jobs and event (held.ts queues it once approved). It never talks SMTP and
 * never resolves DNS: the delivery engine consumes the jobs.
 */
import type SQLite from 'better-sqlite3';
import type { EventService } from '../events/service.js';
import type { Config } from '../platform/config/schema.js';
import type { Db } from '../platform/db/database.js';
import { createGroupCommit, throttled } from '../platform/db/group-commit.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import type { Mailbox } from '../platform/mail-address.js';
import type { BatchBudget } from './batch-budget.js';
import { checkSuppression, createSenderCheck, type SendPorts } from './checks.js';
import { canonicalHeaders } from './headers.js';
import type { Reservation, SendLimits } from './limits.js';
import type { Draft, DraftRecipient, MessageRef } from './model.js';
import type { SendHolds } from './ports.js';
import type { SendRequest } from './schemas.js';
import type { EmailStore } from './store.js';

export interface AdmissionDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly config: Config;
  readonly store: EmailStore;
  readonly events: EventService;
  readonly limits: SendLimits;
  readonly ports: SendPorts;
  /** Agent sends held for approval; without it nothing is held. */
  readonly holds?: SendHolds;
}

/** A send that passed every check and holds its quota slots, waiting for its commit. */
export interface Admitted {
  readonly draft: Draft;
  readonly reservation: Reservation;
}

export interface Committed {
  readonly ref: MessageRef;
  /** False when an earlier send with the same idempotency key was returned. */
  readonly created: boolean;
}

function recipientsOf(request: SendRequest): DraftRecipient[] {
  const seen = new Set<string>();
  const out: DraftRecipient[] = [];
  const add = (kind: DraftRecipient['kind'], list: readonly Mailbox[] | undefined) => {
    for (const mailbox of list ?? []) {
      const email = mailbox.normalized;
      if (seen.has(email)) continue; // one delivery per address, even if listed twice
      seen.add(email);
      out.push({ kind, mailbox, email });
    }
  };
  add('to', request.to);
  add('cc', request.cc);
  add('bcc', request.bcc);
  return out;
}

export function createAdmission(deps: AdmissionDeps) {
  const { store, events, limits, ports } = deps;
  const admittedListeners = new Set<(messageIds: readonly string[]) => void>();
  const checkSender = createSenderCheck(deps.config.sandbox, ports);
  // Acceptance commits durably, up to 256 sends (or batches) a transaction; listeners hear of
  // commits at most every 25 ms.
  const announce = (ids: readonly string[]) => {
    if (ids.length === 0) return;
    for (const listener of admittedListeners) listener(ids);
  };
  const commitUnit = createGroupCommit(deps, (trx, unit: (trx: Db) => Promise<unknown>) => unit(trx), {
    maxBatch: 256,
    afterCommit: throttled(() => events.notify()),
  });
  // A broadcast's batches commit on their own, with synchronous=NORMAL (durability.ts): never in a
  // transactional send's transaction, whose 202 would wait for them, and without an fsync that
  // blocks the event loop per batch. A power cut rolls a batch back with its ledger and cursor,
  // and it is queued again: what delivery's relaxed outcomes already accept (at least once).
  const commitMarketingUnit = createGroupCommit(
    deps,
    (trx, unit: (trx: Db) => Promise<unknown>) => unit(trx),
    { maxBatch: 1, durability: 'relaxed', afterCommit: throttled(() => events.notify()) },
  );

  /**
   * Validated request → Draft; a named template is rendered from its published version here
   * (and, in a batch, counted against what the batch's templates may render in all).
   */
  async function toDraft(
    principal: Pick<KeyPrincipal, 'projectId' | 'mode'> & { readonly keyId: string | null },
    request: SendRequest,
    key: string | null,
    budget?: BatchBudget,
  ): Promise<Draft> {
    let content = { subject: request.subject ?? '', html: request.html ?? null, text: request.text ?? null };
    let template: Draft['template'] = null;
    if (request.template !== undefined) {
      const variables = request.variables ?? {};
      const rendered = await ports.renderTemplate(principal.projectId, request.template, variables);
      content = { subject: rendered.subject, html: rendered.html, text: rendered.text };
      budget?.charge(content);
      template = { id: rendered.templateId, version: rendered.version, variables };
    }
    return {
      projectId: principal.projectId,
      keyId: principal.keyId,
      mode: principal.mode,
      from: request.from,
      replyTo: request.reply_to ?? [],
      recipients: recipientsOf(request),
      ...content,
      headers: canonicalHeaders(request.headers),
      tags: request.tags ?? {},
      template,
      sendAt: request.send_at ?? null,
      trackOpens: request.track_opens ?? null,
      trackClicks: request.track_clicks ?? null,
      idempotencyKey: key,
    };
  }

  function appendAccepted(trx: Db, draft: Draft, ref: MessageRef) {
    // The group commit's transaction holds the connection (platform/db/group-commit.ts).
    return events.appendWithin(trx, {
      projectId: draft.projectId,
      type: draft.sendAt === null ? 'email.sent' : 'email.scheduled',
      messageId: ref.id,
      at: ref.createdAt,
      data: {
        email_id: ref.id,
        from: draft.from.display,
        // cc and bcc too: the event goes only to the project's own webhooks, and analytics counts
        // every recipient from it.
        to: draft.recipients.filter((r) => r.kind === 'to').map((r) => r.email),
        cc: draft.recipients.filter((r) => r.kind === 'cc').map((r) => r.email),
        bcc: draft.recipients.filter((r) => r.kind === 'bcc').map((r) => r.email),
        subject: draft.subject,
        tags: draft.tags,
        created_at: new Date(ref.createdAt).toISOString(),
        ...(draft.sendAt === null ? {} : { scheduled_at: new Date(draft.sendAt).toISOString() }),
        ...(draft.broadcastId === undefined ? {} : { broadcast_id: draft.broadcastId }),
      },
    });
  }

  return {
    /** Every check of one item, then its quota reservation (the last, synchronous step). */
    async admit(
      principal: KeyPrincipal,
      request: SendRequest,
      key: string | null,
      budget?: BatchBudget,
    ): Promise<Admitted> {
      let draft = await toDraft(principal, request, key, budget);
      const { oauth } = principal;
      if (oauth && deps.holds && (await deps.holds.holds({ ...principal, oauth })))
        draft = { ...draft, heldFor: oauth };
      await checkSender(principal, draft);
      await checkSuppression(ports, draft);
      await limits.prepare(principal.projectId, principal.mode);
      const reservation = limits.reserve({
        projectId: principal.projectId,
        keyId: principal.keyId,
        mode: principal.mode,
        recipients: draft.recipients.map((r) => r.email),
      });
      return { draft, reservation };
    },

    /**
     * Posthorn's own mail (system-mail): a live send of the system project that skips the sender
     * rules (sandbox, verified domain) and the API-key rate limits, which guard customers' sends,
     * not the operator's. The suppression list of the system project still applies.
     */
    async admitSystem(projectId: string, request: SendRequest): Promise<Admitted> {
      const draft = await toDraft({ projectId, keyId: null, mode: 'live' }, request, null);
      await checkSuppression(ports, draft);
      return { draft, reservation: { headers: {}, release: () => {} } };
    },

    /**
     * Broadcast messages (channel `marketing`, no API key): the caller built and checked the
     * drafts (sender verified, recipients subscribed and not suppressed); only the daily quota is
     * applied here. They are written in ONE transaction with `within`, which writes the caller's
     * own rows in it (a broadcast's ledger and cursor), so either all of them are queued or none
     * is; a transaction of their own, committed without an fsync (`commitMarketingUnit`). They are not signed at admission: delivery renders them
     * (marketing never takes the render threads from transactional mail ahead of its turn).
     */
    async commitMarketing(drafts: readonly Draft[], within: (trx: Db) => Promise<void>): Promise<void> {
      const first = drafts[0];
      if (first === undefined) return;
      await limits.prepare(first.projectId, first.mode);
      const reservation = limits.reserveDaily(first.projectId, first.mode, drafts.length);
      try {
        await commitMarketingUnit(async (trx: Db) => {
          const now = Date.now();
          for (const draft of drafts) {
            const written = store.insertAccepted(trx, draft, now);
            // SQLite's adapter answers synchronously: no promise to wait for on its hot path.
            const result = written instanceof Promise ? await written : written;
            if (result.created) {
              const appended = appendAccepted(trx, draft, result.ref);
              if (appended instanceof Promise) await appended;
            }
          }
          await within(trx);
        });
      } catch (error) {
        reservation.release();
        throw error;
      }
    },

    /** ONE transaction for all drafts: messages, recipients, jobs, idempotency records, events. */
    async commit(admitted: readonly Admitted[]): Promise<Committed[]> {
      let results: Committed[];
      try {
        // Shares a transaction (and its fsync) with concurrent sends, in a savepoint of its own.
        results = (await commitUnit(async (trx: Db) => {
          const now = Date.now();
          const out: Committed[] = [];
          for (const { draft } of admitted) {
            const written = store.insertAccepted(trx, draft, now);
            // SQLite's adapter answers synchronously: no promise to wait for on its hot path.
            const result = written instanceof Promise ? await written : written;
            if (result.created && draft.heldFor && deps.holds) {
              const held = {
                messageId: result.ref.id,
                projectId: draft.projectId,
                by: draft.heldFor,
                at: now,
              };
              await deps.holds.record(trx, held);
            } else if (result.created) {
              const appended = appendAccepted(trx, draft, result.ref);
              if (appended instanceof Promise) await appended;
            }
            out.push(result);
          }
          return out;
        })) as Committed[];
      } catch (error) {
        for (const { reservation } of admitted) reservation.release();
        throw error;
      }
      results.forEach((result, i) => {
        if (!result.created) admitted[i]?.reservation.release();
      });
      const live = results.filter(
        (result, i) => result.created && admitted[i]?.draft.mode === 'live' && !admitted[i]?.draft.heldFor,
      );
      announce(live.map((result) => result.ref.id));
      return results;
    },

    /** Tells the listeners of live messages queued after their acceptance (an approved held send). */
    announce,

    /**
     * `listener` hears the IDs of live messages once their acceptance has committed (delivery
     * renders them at once). It must not throw, and is called before the response goes out.
     */
    onAdmitted(listener: (messageIds: readonly string[]) => void): () => void {
      admittedListeners.add(listener);
      return () => admittedListeners.delete(listener);
    },

    /** A replay of an earlier send with the same key, read from committed rows. */
    replayOf(principal: KeyPrincipal, key: string | null): Promise<MessageRef | undefined> {
      if (key === null) return Promise.resolve(undefined);
      const { projectId, mode } = principal;
      return store.findIdempotentCommitted(projectId, mode, key, Date.now());
    },
  };
}

export type Admission = ReturnType<typeof createAdmission>;
