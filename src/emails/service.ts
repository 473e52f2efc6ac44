/**
 * The send path: a validated request becomes a Draft, passes the checks (checks.ts), reserves its
 * quota and rate-limit slots, and is written in ONE transaction with its recipients, its delivery
 * jobs, its idempotency record and its `email.sent` / `email.scheduled` event; listeners are told
 * after the commit. A batch runs each item through the same steps and commits the accepted ones
 * together. It never talks SMTP and never resolves DNS: the delivery engine consumes the jobs.
 */
import { setImmediate } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import type { EventService } from '../events/service.js';
import type { Config } from '../platform/config/schema.js';
import type { Db } from '../platform/db/database.js';
import type { KeyMode } from '../platform/db/tables.js';
import { createGroupCommit, throttled } from '../platform/db/group-commit.js';
import { AppError, badRequest, type ErrorDetail } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { formatPath } from '../platform/http/validate.js';
import type { Mailbox } from './address.js';
import { type BatchBudget, createBatchBudget } from './batch-budget.js';
import {
  checkNotSuspended,
  checkSendAt,
  checkSuppression,
  createSenderCheck,
  type SendPorts,
} from './checks.js';
import { canonicalHeaders } from './headers.js';
import type { Reservation, SendLimits } from './limits.js';
import type { Draft, DraftRecipient, MessageRef } from './model.js';
import { cancelledEvent } from './release-events.js';
import { type BatchItem, batchItem, type SendRequest } from './schemas.js';
import type { EmailStore, ListedMessage } from './store.js';

export interface SendOutcome {
  readonly ref: MessageRef;
  /** False when an earlier send with the same idempotency key was returned. */
  readonly created: boolean;
  readonly headers: Record<string, string>;
}

export type BatchResult =
  | { readonly index: number; readonly id: string; readonly status: string }
  | {
      readonly index: number;
      readonly status_code: number;
      readonly error: string;
      readonly details?: readonly ErrorDetail[];
    };

export interface EmailServiceDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly config: Config;
  readonly store: EmailStore;
  readonly events: EventService;
  readonly limits: SendLimits;
  readonly ports: SendPorts;
}

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

/** Spec §4.1: two items of one batch must not share a key, or the second would replay the first. */
function duplicateKey(key: string, firstIndex: number): AppError {
  const message = `is already the key of item ${firstIndex} in this batch; give each item its own key`;
  return badRequest(`Invalid email: idempotency key ${JSON.stringify(key)} ${message}.`, [
    { path: 'idempotency_key', message },
  ]);
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

export function createEmailService(deps: EmailServiceDeps) {
  const { db, store, events, limits, ports } = deps;
  const checkSender = createSenderCheck(deps.config.sandbox, ports);
  // Acceptance commits durably, up to 256 sends (or batches) a transaction; listeners hear of
  // commits at most every 25 ms.
  const commitUnit = createGroupCommit(deps, (_trx, unit: () => Promise<unknown>) => unit(), {
    maxBatch: 256,
    afterCommit: throttled(() => events.notify()),
  });

  /**
   * Validated request → Draft; a named template is rendered from its published version here
   * (and, in a batch, counted against what the batch's templates may render in all).
   */
  async function toDraft(
    principal: KeyPrincipal,
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

  /** Every check of one item, then its quota reservation (the last, synchronous step). */
  async function admit(
    principal: KeyPrincipal,
    request: SendRequest,
    key: string | null,
    budget?: BatchBudget,
  ) {
    const draft = await toDraft(principal, request, key, budget);
    await checkSender(principal, draft);
    await checkSuppression(ports, draft);
    await limits.prepare(principal.projectId);
    const reservation = limits.reserve({
      projectId: principal.projectId,
      keyId: principal.keyId,
      recipients: draft.recipients.map((r) => r.email),
    });
    return { draft, reservation };
  }

  /** ONE transaction for all drafts: messages, recipients, jobs, idempotency records, events. */
  async function commit(
    admitted: ReadonlyArray<{ draft: Draft; reservation: Reservation }>,
  ): Promise<Array<{ ref: MessageRef; created: boolean }>> {
    let results: Array<{ ref: MessageRef; created: boolean }>;
    try {
      // Shares a transaction (and its fsync) with concurrent sends, in a savepoint of its own.
      results = (await commitUnit(async () => {
        const now = Date.now();
        const out: Array<{ ref: MessageRef; created: boolean }> = [];
        for (const { draft } of admitted) {
          const result = store.insertAccepted(draft, now);
          if (result.created) appendAccepted(draft, result.ref);
          out.push(result);
        }
        return out;
      })) as Array<{ ref: MessageRef; created: boolean }>;
    } catch (error) {
      for (const { reservation } of admitted) reservation.release();
      throw error;
    }
    results.forEach((result, i) => {
      if (!result.created) admitted[i]?.reservation.release();
    });
    return results;
  }

  function appendAccepted(draft: Draft, ref: MessageRef) {
    // The group commit's transaction holds the connection (platform/db/group-commit.ts).
    return events.appendInTransaction({
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
      },
    });
  }

  /** A replay of an earlier send with the same key, read under the connection lock. */
  function replayOf(principal: KeyPrincipal, key: string | null): Promise<MessageRef | undefined> {
    if (key === null) return Promise.resolve(undefined);
    const { projectId, mode } = principal;
    return db.connection().execute(async () => store.findIdempotent(projectId, mode, key, Date.now()));
  }

  return {
    async send(principal: KeyPrincipal, request: SendRequest, key: string | null): Promise<SendOutcome> {
      const replay = await replayOf(principal, key);
      if (replay) return { ref: replay, created: false, headers: {} };
      checkSendAt(request.send_at, 'body');
      checkNotSuspended(principal);
      const admitted = await admit(principal, request, key);
      const [result] = await commit([admitted]);
      if (!result) throw new Error('commit returned no result');
      return { ...result, headers: admitted.reservation.headers };
    },

    /** Each item validated and checked on its own; the accepted ones commit together. */
    async sendBatch(
      principal: KeyPrincipal,
      items: readonly unknown[],
      baseKey: string | null,
    ): Promise<{ results: BatchResult[]; headers: Record<string, string> }> {
      checkNotSuspended(principal);
      const results: BatchResult[] = [];
      const admitted: Array<{ index: number; draft: Draft; reservation: Reservation }> = [];
      const keyIndex = new Map<string, number>(); // effective key → the first item that has it
      const budget = createBatchBudget(deps.config.limits.max_body_bytes);
      for (const [index, item] of items.entries()) {
        // Admitting an item awaits nothing but microtasks (its reads are synchronous): without a
        // turn of the event loop between items, 32 concurrent 100-item batches held it for
        // ~300 ms at a time, and every other request, the delivery engine and the SMTP listener
        // waited (BENCHMARKS.md, "End to end").
        if (index > 0) await setImmediate();
        try {
          const request = parseItem(item);
          const key = request.idempotency_key ?? (baseKey === null ? null : `${baseKey}-${index}`);
          if (key !== null) {
            const first = keyIndex.get(key);
            if (first !== undefined) throw duplicateKey(key, first);
            keyIndex.set(key, index);
          }
          const replay = await replayOf(principal, key);
          if (replay) {
            results.push({ index, id: replay.id, status: replay.status });
            continue;
          }
          checkSendAt(request.send_at, 'email');
          admitted.push({ index, ...(await admit(principal, request, key, budget)) });
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) {
            for (const entry of admitted) entry.reservation.release();
            throw error;
          }
          results.push({
            index,
            status_code: error.status,
            error: error.message,
            ...(error.details ? { details: error.details } : {}),
          });
        }
      }
      const committed = admitted.length ? await commit(admitted) : [];
      committed.forEach((result, i) => {
        const index = admitted[i]?.index ?? -1;
        results.push({ index, id: result.ref.id, status: result.ref.status });
      });
      results.sort((a, b) => a.index - b.index);
      return { results, headers: admitted.at(-1)?.reservation.headers ?? {} };
    },

    async get(projectId: string, id: string): Promise<MessageRef | undefined> {
      return store.get(projectId, id);
    },

    /** Live or test: the key mode a message was sent with (analytics reports the modes apart). */
    messageMode(messageId: string): KeyMode | undefined {
      return store.modeOf(messageId);
    },

    async list(
      projectId: string,
      limit: number,
      after: string | undefined,
    ): Promise<{ data: ListedMessage[]; hasMore: boolean }> {
      const rows = await store.list(projectId, limit + 1, after);
      return { data: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    /**
     * True when a scheduled message was cancelled; false when absent or no longer scheduled. The
     * cancel and its internal `email.cancelled` event (analytics stops counting the recipients)
     * commit together.
     */
    async cancelSchedule(projectId: string, id: string): Promise<boolean> {
      const now = Date.now();
      const cancelled = await db.transaction().execute(async (trx) => {
        const message = await store.cancelScheduled(trx, projectId, id, now);
        if (!message) return false;
        await events.append(trx, cancelledEvent(message, await store.recipientsOf(trx, id), now));
        return true;
      });
      if (cancelled) events.notify();
      return cancelled;
    },
  };
}

function parseItem(item: unknown): BatchItem {
  const parsed = batchItem.safeParse(item);
  if (parsed.success) return parsed.data;
  const details: ErrorDetail[] = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: formatPath([...issue.path, key]),
          message: 'is not a supported field',
        }))
      : [{ path: formatPath(issue.path) || '(item)', message: issue.message }],
  );
  const first = details[0];
  throw badRequest(
    `Invalid email: ${first ? `${first.path}: ${first.message}` : 'the item is invalid'}.`,
    details,
  );
}

export type EmailService = ReturnType<typeof createEmailService>;
