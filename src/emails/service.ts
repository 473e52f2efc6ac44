/**
 * The send API's rules, composed: a single send and a batch go through the same admission
 * (admission.ts: checks, quota, ONE transaction with recipients, jobs, idempotency record and
 * event; the batch's per-item handling is batch-send.ts); reading messages back and cancelling a
 * scheduled send are here. It never talks SMTP and never resolves DNS: the delivery engine
 * consumes the jobs.
 */
import type { KeyMode } from '../platform/db/tables.js';
import { badRequest } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { type AdmissionDeps, createAdmission } from './admission.js';
import { createBatchSend } from './batch-send.js';
import { checkNotSuspended, checkSendAt } from './checks.js';
import { createHeldSends } from './held.js';
import type { MessageDetail, MessageRef, MessageScope } from './model.js';
import { cancelledEvent } from './release-events.js';
import type { SendRequest } from './schemas.js';
import type { ListedMessage } from './store.js';

export type { BatchResult } from './batch-send.js';

export interface SendOutcome {
  readonly ref: MessageRef;
  /** False when an earlier send with the same idempotency key was returned. */
  readonly created: boolean;
  readonly headers: Record<string, string>;
}

export type EmailServiceDeps = AdmissionDeps;

/** Spec §4.1 / §8: `Idempotency-Key` is 1 to 255 characters. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.length < 1 || value.length > 255) {
    throw badRequest('Idempotency-Key: must be 1 to 255 characters.', [
      { path: 'Idempotency-Key', message: 'must be 1 to 255 characters' },
    ]);
  }
  return value;
}

export function createEmailService(deps: EmailServiceDeps) {
  const { db, store, events } = deps;
  const admission = createAdmission(deps);

  return {
    async send(principal: KeyPrincipal, request: SendRequest, key: string | null): Promise<SendOutcome> {
      const replay = await admission.replayOf(principal, key);
      if (replay) return { ref: replay, created: false, headers: {} };
      checkSendAt(request.send_at, 'body');
      checkNotSuspended(principal);
      const admitted = await admission.admit(principal, request, key);
      const [result] = await admission.commit([admitted]);
      if (!result) throw new Error('commit returned no result');
      return { ...result, headers: admitted.reservation.headers };
    },

    /**
     * Posthorn's own mail through the same pipeline (system-mail/service.ts is the only caller):
     * recorded as a live message of the system project, signed with its domain's keys, delivered by
     * the engine. No sender rules, no API-key limits; suppressions apply (422).
     */
    async sendSystem(projectId: string, request: SendRequest): Promise<MessageRef> {
      const admitted = await admission.admitSystem(projectId, request);
      const [result] = await admission.commit([admitted]);
      if (!result) throw new Error('commit returned no result');
      return result.ref;
    },

    sendBatch: createBatchSend(admission, deps.config.limits.max_body_bytes),

    /** Agent sends held for approval: queue, reject, show (held.ts; the approvals capability decides). */
    held: createHeldSends({
      db,
      store,
      events,
      ports: deps.ports,
      sandbox: deps.config.sandbox,
      announce: admission.announce,
    }),

    /** A broadcast's messages (channel `marketing`), with the broadcast's own rows in the same transaction. */
    commitMarketing: admission.commitMarketing,

    /** Live messages whose acceptance committed (delivery's admission rendering listens). */
    onAdmitted: admission.onAdmitted,

    /** A message of the scope's project and key mode; another mode's is undefined, as an absent one. */
    async get(scope: MessageScope, id: string): Promise<MessageRef | undefined> {
      return store.get(scope, id);
    },

    /** As `get`, with each recipient's status (`GET /v1/emails/{id}`). */
    /** The message and its recipients read in one transaction, so a cancel cannot fall between them. */
    async detail(scope: MessageScope, id: string): Promise<MessageDetail | undefined> {
      return db.transaction().execute(async (trx) => {
        const ref = await store.get(scope, id, trx);
        return ref && { ...ref, recipients: await store.recipientStatuses(id, trx) };
      });
    },

    /**
     * Live or test: the key mode a message was sent with, synchronously (a prepared statement, for
     * the SQLite adapters' synchronous batches). PostgreSQL's readers ask `messageModes`.
     */
    messageMode(messageId: string): KeyMode | undefined {
      const mode = store.modeOf(messageId);
      if (mode instanceof Promise)
        throw new Error('messageMode is synchronous, SQLite only: use messageModes');
      return mode;
    },

    /**
     * The lane delivery recorded on the job carrying a recipient, synchronously (SQLite only): the
     * reputation projection's fallback when the analytics projection has not yet recorded it (it
     * waits while a broadcast is delivered, platform/bulk-activity.ts).
     */
    recipientLane(messageId: string, recipient: string): string | undefined {
      return store.laneOfSqlite(messageId, recipient);
    },

    /** `recipientLane` for several recipients at once, by `message_id\u0000recipient` (either engine). */
    recipientLanes(
      pairs: readonly { message_id: string; recipient: string }[],
    ): Promise<Map<string, string>> {
      return store.lanesOf(pairs);
    },

    /** The modes of several messages at once (messages the store does not know are left out). */
    messageModes(messageIds: readonly string[]): Promise<Map<string, KeyMode>> {
      return store.modesOf(messageIds);
    },

    async list(
      scope: MessageScope,
      limit: number,
      after: string | undefined,
    ): Promise<{ data: ListedMessage[]; hasMore: boolean }> {
      const rows = await store.list(scope, limit + 1, after);
      return { data: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    /**
     * True when a scheduled message was cancelled; false when absent, of the other key mode, or no
     * longer scheduled. The cancel and its internal `email.cancelled` event (analytics stops
     * counting the recipients) commit together.
     */
    async cancelSchedule(scope: MessageScope, id: string): Promise<boolean> {
      const now = Date.now();
      const cancelled = await db.transaction().execute(async (trx) => {
        const message = await store.cancelScheduled(trx, scope, id, now);
        if (!message) return false;
        await events.append(trx, cancelledEvent(message, await store.recipientsOf(trx, id), now));
        return true;
      });
      if (cancelled) events.notify();
      return cancelled;
    },
  };
}

export type EmailService = ReturnType<typeof createEmailService>;
