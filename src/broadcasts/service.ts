/**
 * Broadcasts: the rules of their records and transitions (spec §3.2). A broadcast is a draft
 * until scheduled; scheduling (now, or at a time up to 30 days ahead) hands it to the expansion
 * (expansion.ts), which queues one ordinary message of channel `marketing` per subscribed contact;
 * a draft, scheduled or sending broadcast can be cancelled, a finished one cannot (409).
 *
 * The sender's domain must be a verified domain of the project when the broadcast is created,
 * scheduled and when its sending starts; the placeholders of its content must be contact fields.
 */
import type { AudienceService } from '../audiences/service.js';
import { type Mailbox, parseMailbox } from '../platform/mail-address.js';
import type { Db } from '../platform/db/database.js';
import type { BroadcastStatus } from '../platform/db/tables.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { newId } from '../platform/ids.js';
import { placeholderProblems, unknownVariables } from './content.js';
import { type BroadcastRequest, type BroadcastUpdate, MAX_SCHEDULE_AHEAD_MS } from './schemas.js';
import type { BroadcastRow, BroadcastStore, Scope } from './store.js';
import { broadcastView, progressOf } from './views.js';

/** What broadcasts need of the templates capability. */
export interface PublishedTemplates {
  publishedContent(
    projectId: string,
    ref: string,
  ): Promise<{
    templateId: string;
    version: number;
    subject: string;
    html: string | null;
    text: string | null;
    variables: string[];
  }>;
}

export interface BroadcastDeps {
  readonly db: Db;
  readonly store: BroadcastStore;
  readonly audiences: AudienceService;
  readonly domains: { isVerified(projectId: string, name: string): Promise<boolean> };
  readonly templates: PublishedTemplates;
  /** Tells the expansion that a broadcast was scheduled (it looks at once). */
  readonly wake: () => void;
}

/** The sender of a stored broadcast (its From was parsed when it was stored). */
export function senderOf(row: Pick<BroadcastRow, 'from_header'>): Mailbox {
  const parsed = parseMailbox(row.from_header);
  if (!parsed.ok) throw new AppError('internal', `stored sender ${row.from_header} does not parse`);
  return parsed.value;
}

const FINISHED = "it has finished sending; a sent broadcast's messages are in /v1/emails";

export function createBroadcastService(deps: BroadcastDeps) {
  const { store, audiences } = deps;

  async function broadcastOf(scope: Scope, id: string): Promise<BroadcastRow> {
    const row = await store.get(scope, id);
    if (!row) throw notFound(`Broadcast ${id}`);
    return row;
  }

  async function checkSender(projectId: string, from: Pick<Mailbox, 'domain'>): Promise<void> {
    if (!(await deps.domains.isVerified(projectId, from.domain))) {
      throw forbidden(
        `The sender domain ${from.domain} is not a verified domain of this project; broadcasts go out only from a verified domain (add and verify it under /v1/domains).`,
      );
    }
  }

  async function checkAudience(projectId: string, audienceId: string): Promise<void> {
    if (!(await audiences.exists(projectId, audienceId))) throw notFound(`Audience ${audienceId}`);
  }

  async function checkContent(
    projectId: string,
    fields: Partial<Pick<BroadcastRow, 'subject' | 'html' | 'text' | 'template'>>,
  ) {
    if (fields.template) {
      const template = await deps.templates.publishedContent(projectId, fields.template);
      const unknown = unknownVariables(template.variables);
      if (unknown.length > 0) {
        throw badRequest(
          `template: "${fields.template}" declares ${unknown.map((n) => `{{${n}}}`).join(', ')}, which no contact has; a broadcast's template may use first_name, last_name, email, metadata.NAME and unsubscribe_url.`,
          [{ path: 'template', message: 'declares variables that are not contact fields' }],
        );
      }
      return;
    }
    const problems = placeholderProblems({
      subject: fields.subject ?? undefined,
      html: fields.html ?? undefined,
      text: fields.text ?? undefined,
    });
    const first = problems[0];
    if (first) throw badRequest(`Invalid body: ${first.path}: ${first.message}.`, problems);
  }

  return {
    async create(principal: KeyPrincipal, request: BroadcastRequest) {
      const { projectId } = principal;
      await checkAudience(projectId, request.audience_id);
      await checkSender(projectId, request.from);
      await checkContent(projectId, request);
      const now = Date.now();
      const row: BroadcastRow = {
        id: newId('bc', now),
        project_id: projectId,
        mode: principal.mode,
        api_key_id: principal.keyId,
        audience_id: request.audience_id,
        name: request.name ?? request.subject ?? request.template ?? 'Broadcast',
        from_header: request.from.display,
        reply_to: request.reply_to ? JSON.stringify(request.reply_to.map((m) => m.display)) : null,
        subject: request.subject ?? null,
        html: request.html ?? null,
        text: request.text ?? null,
        template: request.template ?? null,
        template_id: null,
        template_version: null,
        tags: JSON.stringify(request.tags ?? {}),
        status: 'draft',
        send_at: null,
        started_at: null,
        finished_at: null,
        cancelled_at: null,
        cursor: null,
        recipients: null,
        queued: 0,
        suppressed: 0,
        last_error: null,
        prepare_cursor: null,
        prepared: 0,
        prepared_for: null,
        prepared_at: null,
        created_at: now,
        updated_at: now,
      };
      await store.insert(row);
      return broadcastView(row);
    },

    /** Changes a draft (Resend's update); anything else is 409. */
    async update(scope: Scope, id: string, changes: BroadcastUpdate) {
      const row = await broadcastOf(scope, id);
      if (row.status !== 'draft')
        throw conflict(`Broadcast ${id} is ${row.status}; only a draft can be changed.`);
      const next: BroadcastRow = { ...row, updated_at: Date.now() };
      if (changes.audience_id !== undefined) {
        await checkAudience(scope.projectId, changes.audience_id);
        next.audience_id = changes.audience_id;
      }
      if (changes.from !== undefined) {
        await checkSender(scope.projectId, changes.from);
        next.from_header = changes.from.display;
      }
      if (changes.name !== undefined) next.name = changes.name;
      if (changes.reply_to !== undefined)
        next.reply_to =
          changes.reply_to === null ? null : JSON.stringify(changes.reply_to.map((m) => m.display));
      if (changes.tags !== undefined) next.tags = JSON.stringify(changes.tags);
      if (changes.template) {
        Object.assign(next, { template: changes.template, subject: null, html: null, text: null });
      } else {
        if (changes.template === null) next.template = null;
        if (changes.subject !== undefined) next.subject = changes.subject;
        if (changes.html !== undefined) next.html = changes.html;
        if (changes.text !== undefined) next.text = changes.text;
        if (changes.subject || changes.html || changes.text) next.template = null;
      }
      if (next.template === null && (next.subject === null || (next.html === null && next.text === null))) {
        throw badRequest(
          'Invalid body: a broadcast needs a subject and html or text, or a published template.',
          [{ path: next.subject === null ? 'subject' : 'html', message: 'would be missing' }],
        );
      }
      await checkContent(scope.projectId, next);
      if (!(await store.transition(id, ['draft'], next)))
        throw conflict(`Broadcast ${id} is no longer a draft.`);
      return broadcastView(next);
    },

    async list(
      scope: Scope,
      query: { limit: number; after?: string | undefined; status?: BroadcastStatus | undefined },
    ) {
      const rows = await store.list(scope, query.limit + 1, query.after, query.status);
      return {
        data: rows.slice(0, query.limit).map((row) => broadcastView(row)),
        has_more: rows.length > query.limit,
      };
    },

    /** One broadcast with its progress. */
    async get(scope: Scope, id: string) {
      const row = await broadcastOf(scope, id);
      const statuses = await store.recipientStatuses(id);
      return broadcastView(row, progressOf(row, statuses, await audiences.unsubscribedBy(id)));
    },

    /** Queues a draft (or moves a scheduled one) to send now or at `sendAt`, up to 30 days ahead. */
    async schedule(scope: Scope, id: string, sendAt: number | undefined) {
      const row = await broadcastOf(scope, id);
      if (row.status !== 'draft' && row.status !== 'scheduled') {
        const why = row.status === 'sent' ? FINISHED : `it is ${row.status}`;
        throw conflict(`Broadcast ${id} cannot be scheduled: ${why}.`);
      }
      const now = Date.now();
      if (sendAt !== undefined) {
        const problem =
          sendAt <= now
            ? 'must be in the future'
            : sendAt - now > MAX_SCHEDULE_AHEAD_MS
              ? 'must be at most 30 days ahead'
              : null;
        if (problem)
          throw badRequest(`Invalid body: send_at: ${problem}.`, [{ path: 'send_at', message: problem }]);
      }
      await checkAudience(scope.projectId, row.audience_id);
      await checkSender(scope.projectId, senderOf(row));
      await checkContent(scope.projectId, row);
      const at = sendAt ?? now;
      // A new send time starts the preparation over: a prepared message is dated for its time.
      const moved = row.prepared_for !== null && row.prepared_for !== at;
      const changes = {
        status: 'scheduled' as const,
        send_at: at,
        last_error: null,
        ...(moved ? { prepare_cursor: null, prepared: 0, prepared_for: null, prepared_at: null } : {}),
        updated_at: now,
      };
      if (!(await store.transition(id, ['draft', 'scheduled'], changes))) {
        throw conflict(`Broadcast ${id} changed while it was being scheduled; read it again.`);
      }
      deps.wake();
      return broadcastView({ ...row, ...changes });
    },

    /**
     * Cancels a draft, scheduled or sending broadcast: nothing more is queued (messages already
     * queued go out). A sent, failed or cancelled one is 409.
     */
    async cancel(scope: Scope, id: string): Promise<void> {
      const row = await broadcastOf(scope, id);
      const now = Date.now();
      const changes = { status: 'cancelled' as const, cancelled_at: now, updated_at: now };
      if (await store.transition(id, ['draft', 'scheduled', 'sending'], changes)) {
        deps.wake();
        return;
      }
      const current = (await store.get(scope, id)) ?? row;
      const why =
        current.status === 'sent'
          ? FINISHED
          : current.status === 'cancelled'
            ? 'it is already cancelled'
            : `it is ${current.status}`;
      throw new AppError('conflict', `Broadcast ${id} cannot be cancelled: ${why}.`);
    },

    /** Whether a broadcast still to send reads the audience (an audience in use is not deleted). */
    audienceInUse: (projectId: string, audienceId: string) => store.audienceInUse(projectId, audienceId),
  };
}

export type BroadcastService = ReturnType<typeof createBroadcastService>;
