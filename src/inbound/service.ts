/**
 * The rules behind `/v1/inbound`: routes (only on a verified domain of the project, one route per
 * address across all projects), received messages and threads (read only), attachment downloads
 * (bytes only once ClamAV called them clean), and replies, which go out through the normal send
 * path with In-Reply-To and References set from the received message (RFC 5322 §3.6.4) and join
 * its thread. A reply's Idempotency-Key is remembered for good: a repeat returns the first reply.
 */
import type { z } from 'zod';
import { isSendableMessageId, MAX_HEADER_VALUE } from '../emails/headers.js';
import type { MessageRef, MessageScope } from '../emails/model.js';
import { type SendRequest, sendRequest } from '../emails/schemas.js';
import type { Db } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { formatPath } from '../platform/http/validate.js';
import { newId } from '../platform/ids.js';
import type { ReplyRequest, RouteCreateRequest, replyResponse, threadRecord } from './schemas.js';
import type { InboundStore, MessageRow, ThreadCursor } from './store.js';
import type { OutboundLookup } from './threads/outbound.js';
import { baseSubject, type Threads } from './threads/threads.js';
import { inboundThreadView, messageView, outboundThreadView, routeView, summaryView } from './views.js';

/** What the inbound API needs from the domains and send capabilities (wired in build.ts). */
export interface InboundServicePorts {
  /** The project's domain with its status, or undefined when the project has no such domain. */
  domain(
    projectId: string,
    domainId: string,
  ): Promise<{ id: string; name: string; status: string } | undefined>;
  send(principal: KeyPrincipal, request: SendRequest, key: string): Promise<MessageRef>;
  /** A message sent in `scope` (a key's project and mode), as `GET /v1/emails/{id}` shows it. */
  sent(scope: MessageScope, id: string): Promise<MessageRef | undefined>;
}

export const MAX_REPLY_KEY = 200;
/** Enough ancestry to thread in every client without growing the header forever. */
const MAX_REFERENCES = 20;

export function replyKeyOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || value.length < 1 || value.length > MAX_REPLY_KEY) {
    throw badRequest(`Idempotency-Key: is required and must be 1 to ${MAX_REPLY_KEY} characters.`, [
      { path: 'Idempotency-Key', message: `is required, 1 to ${MAX_REPLY_KEY} characters` },
    ]);
  }
  return value;
}

/** In-Reply-To and References of a reply (RFC 5322 §3.6.4): the parent's References, else its In-Reply-To, plus its Message-ID. */
export function threadingHeaders(parent: MessageRow): Record<string, string> {
  // Only IDs the send path accepts (US-ASCII, bounded): a received message's own may be anything.
  if (!parent.message_id_header || !isSendableMessageId(parent.message_id_header)) return {};
  const ancestry = JSON.parse(parent.references) as string[];
  const chain = [...(ancestry.length > 0 ? ancestry : parent.in_reply_to ? [parent.in_reply_to] : [])]
    .filter((id) => isSendableMessageId(id) && id !== parent.message_id_header)
    .slice(-(MAX_REFERENCES - 1));
  // The newest IDs that fit the header's bound, the parent's own always.
  const kept = [`<${parent.message_id_header}>`];
  let length = kept[0]?.length ?? 0;
  for (const id of chain.reverse()) {
    length += id.length + 3;
    if (length > MAX_HEADER_VALUE) break;
    kept.unshift(`<${id}>`);
  }
  return { 'In-Reply-To': `<${parent.message_id_header}>`, References: kept.join(' ') };
}

export function createInboundService(deps: {
  readonly db: Db;
  readonly store: InboundStore;
  readonly threads: Threads;
  readonly outbound: OutboundLookup;
  readonly ports: InboundServicePorts;
}) {
  const { db, store, threads, outbound, ports } = deps;

  const loadMessage = async (projectId: string, id: string): Promise<MessageRow> => {
    const row = await store.getMessage(projectId, id);
    if (!row) throw notFound(`Inbound email ${id}`);
    return row;
  };

  return {
    async createRoute(projectId: string, input: RouteCreateRequest) {
      const domain = await ports.domain(projectId, input.domain_id);
      if (!domain) throw notFound(`Domain ${input.domain_id}`);
      if (domain.status !== 'verified') {
        throw forbidden(
          `Domain ${domain.name} is not verified; verify it before routing its mail (POST /v1/domains/${domain.id}/verify).`,
        );
      }
      const local = (input.local_part ?? '').toLowerCase();
      const row = {
        id: newId('rte'),
        project_id: projectId,
        domain_id: domain.id,
        domain: domain.name,
        local_part: local,
        created_at: Date.now(),
      };
      try {
        await store.insertRoute(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const address = `${local || '*'}@${domain.name}`;
        throw conflict(`An inbound route for ${address} already exists; delete it first to replace it.`);
      }
      return routeView(row);
    },

    async listRoutes(projectId: string) {
      return { data: (await store.listRoutes(projectId)).map(routeView), has_more: false };
    },

    /** Every domain some project routes received mail for (`posthorn doctor` checks their MX). */
    routedDomains(): Promise<string[]> {
      return store.routedDomains();
    },

    async deleteRoute(projectId: string, id: string): Promise<void> {
      if (!(await store.deleteRoute(projectId, id))) throw notFound(`Inbound route ${id}`);
    },

    async listEmails(projectId: string, page: { limit: number; after?: string | undefined }) {
      const rows = await store.listMessages(projectId, page.limit + 1, page.after);
      const shown = rows.slice(0, page.limit);
      const attachments = await store.attachmentsOf(shown.map((row) => row.id));
      const counts = new Map<string, number>();
      for (const a of attachments) counts.set(a.message_id, (counts.get(a.message_id) ?? 0) + 1);
      return {
        data: shown.map((row) => summaryView(row, counts.get(row.id) ?? 0)),
        has_more: rows.length > page.limit,
      };
    },

    async getEmail(projectId: string, id: string) {
      const row = await loadMessage(projectId, id);
      return messageView(row, await store.attachmentsOf([row.id]));
    },

    /**
     * A thread's messages, received and sent, oldest first, one page at a time (`after` = the last
     * message ID of the previous page): a long conversation is never read whole. Sent messages are
     * those of the scope's key mode only, as `GET /v1/emails` lists them; received mail has no mode.
     */
    async getThread(
      scope: MessageScope,
      id: string,
      page: { limit: number; after?: string | undefined },
    ): Promise<z.infer<typeof threadRecord>> {
      const { projectId, mode } = scope;
      const thread = await store.getThread(projectId, id);
      if (!thread) throw notFound(`Thread ${id}`);
      let cursor: ThreadCursor | undefined;
      if (page.after !== undefined) {
        const at = await store.threadPosition(thread.id, mode, page.after);
        if (at === undefined)
          throw badRequest(`after: ${page.after} is not a message of thread ${thread.id}.`, [
            { path: 'after', message: 'is not a message of this thread' },
          ]);
        cursor = { at, id: page.after };
      }
      const inbound = await store.messagesInThread(thread.id, page.limit + 1, cursor);
      const members = await store.outboundMembers(thread.id, mode, page.limit + 1, cursor);
      const merged = [
        ...inbound.map((row) => ({ at: row.created_at, id: row.id, row })),
        ...members.map((member) => ({ at: member.at, id: member.ref_id, row: undefined })),
      ].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const shown = merged.slice(0, page.limit);
      const sent = new Map(
        (
          await outbound.summaries(
            projectId,
            shown.filter((item) => item.row === undefined).map((item) => item.id),
          )
        ).map((summary) => [summary.id, summary]),
      );
      const messages = shown.flatMap((item) => {
        if (item.row) return [inboundThreadView(item.row)];
        const summary = sent.get(item.id);
        return summary ? [outboundThreadView(summary)] : [];
      });
      return {
        id: thread.id,
        subject: thread.subject,
        created_at: new Date(thread.created_at).toISOString(),
        last_message_at: new Date(thread.last_message_at).toISOString(),
        messages,
        has_more: merged.length > page.limit,
      };
    },

    /** The bytes of a clean attachment; anything else (pending, infected, error, absent) is 404. */
    async download(projectId: string, id: string) {
      const row = await store.attachmentForDownload(projectId, id);
      if (row?.scan_state !== 'clean') throw notFound(`Attachment ${id}`);
      // The type comes from the sender: only a plain type/subtype goes into the response header.
      const contentType = /^[\w.+-]+\/[\w.+-]+$/.test(row.content_type)
        ? row.content_type
        : 'application/octet-stream';
      return { filename: row.filename, contentType, content: row.content };
    },

    async reply(
      principal: KeyPrincipal,
      inboundId: string,
      key: string,
      body: ReplyRequest,
    ): Promise<{ body: z.infer<typeof replyResponse>; created: boolean }> {
      const { projectId } = principal;
      const earlier = await store.findReply(projectId, principal.mode, key);
      if (earlier) {
        const ref = await ports.sent(principal, earlier.message_id);
        const parent = await store.getMessage(projectId, earlier.inbound_id);
        if (ref && parent) return { body: replyBody(ref, parent), created: false };
      }
      const parent = await loadMessage(projectId, inboundId);
      const to = [
        ...(JSON.parse(parent.reply_to) as string[]),
        ...(parent.from_email ? [parent.from_email] : []),
      ][0];
      if (!to)
        throw new AppError('unprocessable', `Inbound email ${inboundId} has no sender address to reply to.`);
      const subject = `Re: ${baseSubject(parent.subject) || '(no subject)'}`;
      const request = sendRequest.safeParse({
        from: body.from,
        to: [to],
        subject,
        ...(body.html === undefined ? {} : { html: body.html }),
        ...(body.text === undefined ? {} : { text: body.text }),
        headers: threadingHeaders(parent),
      });
      if (!request.success) {
        const details = request.error.issues.map((issue) => ({
          path: formatPath(issue.path) || '(body)',
          message: issue.message,
        }));
        throw badRequest(`Invalid reply: ${details[0]?.path}: ${details[0]?.message}.`, details);
      }
      // The send path's own idempotency makes two concurrent replies with one key send once.
      const ref = await ports.send(principal, request.data, `inbound-reply:${key}`);
      await db.transaction().execute(async (trx) => {
        await store.insertReply(trx, {
          project_id: projectId,
          mode: principal.mode,
          idempotency_key: key,
          inbound_id: parent.id,
          message_id: ref.id,
          created_at: ref.createdAt,
        });
        await threads.addOutbound(trx, projectId, parent.thread_id, ref.id, ref.createdAt);
      });
      return { body: replyBody(ref, parent), created: true };
    },
  };
}

function replyBody(ref: MessageRef, parent: MessageRow): z.infer<typeof replyResponse> {
  return {
    id: ref.id,
    status: ref.status,
    created_at: new Date(ref.createdAt).toISOString(),
    thread_id: parent.thread_id,
    in_reply_to: parent.message_id_header,
  };
}

export type InboundService = ReturnType<typeof createInboundService>;
