/**
 * Queries of held agent sends (messages `awaiting_approval`, held.ts): reading one back with what
 * it will send, queueing it once approved (its delivery jobs are written then), and rejecting it.
 * Part of the emails store (store.ts), in a file of its own for size; the same tables, the same
 * rules: every change is guarded by the status, so a decision made meanwhile wins.
 */
import type { Db } from '../platform/db/database.js';
import type { MessageStatus, RecipientKind } from '../platform/db/tables.js';
import { newId } from '../platform/ids.js';
import { endUntried } from './store-end.js';

/** A held message as its approval reads it. */
export interface HeldMessage {
  readonly id: string;
  readonly project_id: string;
  readonly mode: 'live' | 'test';
  readonly status: MessageStatus;
  readonly from_header: string;
  readonly from_email: string;
  readonly from_domain: string;
  readonly subject: string;
  readonly tags: string;
  readonly send_at: number | null;
  readonly created_at: number;
}

/** What a held message will send, as a person reviewing it sees it. */
export interface HeldContent {
  readonly id: string;
  readonly status: MessageStatus;
  readonly from: string;
  readonly to: string[];
  readonly cc: string[];
  readonly bcc: string[];
  readonly replyTo: string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly headers: Record<string, string>;
  readonly tags: Record<string, string>;
  readonly sendAt: number | null;
  readonly template: { readonly id: string; readonly version: number | null } | null;
}

export function heldQueries() {
  return {
    async heldMessage(executor: Db, projectId: string, id: string): Promise<HeldMessage | undefined> {
      return executor
        .selectFrom('messages')
        .select([
          'id',
          'project_id',
          'mode',
          'status',
          'from_header',
          'from_email',
          'from_domain',
          'subject',
          'tags',
          'send_at',
          'created_at',
        ])
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
    },

    /**
     * Moves a held message to the queue (or to `scheduled` when its `send_at` is still ahead) and
     * writes its delivery jobs, one per recipient domain; false when it is no longer held.
     */
    async queueHeld(
      executor: Db,
      message: HeldMessage,
      now: number,
    ): Promise<'queued' | 'scheduled' | false> {
      const scheduled = message.send_at !== null && message.send_at > now;
      const status = scheduled ? 'scheduled' : 'queued';
      const updated = await executor
        .updateTable('messages')
        .set({ status, updated_at: now })
        .where('id', '=', message.id)
        .where('status', '=', 'awaiting_approval')
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      const domains = await executor
        .selectFrom('message_recipients')
        .select('domain')
        .distinct()
        .where('message_id', '=', message.id)
        .orderBy('domain')
        .execute();
      if (domains.length > 0) {
        await executor
          .insertInto('delivery_jobs')
          .values(
            domains.map(({ domain }) => ({
              id: newId('job', now),
              message_id: message.id,
              project_id: message.project_id,
              domain,
              traffic: 'transactional' as const,
              mode: message.mode,
              state: status,
              lane: null,
              due_at: scheduled ? (message.send_at as number) : now,
              locked_until: null,
              attempts: 0,
              last_error: null,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      }
      return status;
    },

    /** A held message rejected (or expired): `rejected`, its recipients `cancelled`; false when no longer held. */
    async rejectHeld(executor: Db, id: string, now: number): Promise<boolean> {
      return endUntried(executor, id, 'awaiting_approval', 'rejected', 'cancelled', now);
    },

    /** The content of the project's messages `ids` (a list of approvals shows them). */
    async heldContents(executor: Db, projectId: string, ids: readonly string[]): Promise<HeldContent[]> {
      if (ids.length === 0) return [];
      const rows = await executor
        .selectFrom('messages as m')
        .leftJoin('message_bodies as b', 'b.message_id', 'm.id')
        .select([
          'm.id',
          'm.status',
          'm.from_header',
          'm.reply_to',
          'm.subject',
          'm.headers',
          'm.tags',
          'm.send_at',
          'm.template_id',
          'm.template_version',
          'b.html',
          'b.text',
        ])
        .where('m.project_id', '=', projectId)
        .where('m.id', 'in', ids)
        .execute();
      const recipients = await executor
        .selectFrom('message_recipients')
        .select(['message_id', 'kind', 'display'])
        .where('message_id', 'in', ids)
        .orderBy('id')
        .execute();
      const byMessage = new Map<string, Record<RecipientKind, string[]>>();
      for (const r of recipients) {
        const lists = byMessage.get(r.message_id) ?? { to: [], cc: [], bcc: [] };
        lists[r.kind].push(r.display);
        byMessage.set(r.message_id, lists);
      }
      return rows.map((row) => {
        const lists = byMessage.get(row.id) ?? { to: [], cc: [], bcc: [] };
        return {
          id: row.id,
          status: row.status,
          from: row.from_header,
          ...lists,
          replyTo: row.reply_to === null ? [] : (JSON.parse(row.reply_to) as string[]),
          subject: row.subject,
          html: row.html ?? null,
          text: row.text ?? null,
          headers: JSON.parse(row.headers) as Record<string, string>,
          tags: JSON.parse(row.tags) as Record<string, string>,
          sendAt: row.send_at,
          template: row.template_id === null ? null : { id: row.template_id, version: row.template_version },
        };
      });
    },
  };
}
