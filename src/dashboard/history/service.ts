/**
 * The dashboard's message history (spec §4.8): a page of the selected project's messages, sorted,
 * filtered and searched through the history index (store.ts), and one message in detail.
 */
import type { z } from 'zod';
import type { HistoryIndexer } from './indexer.js';
import type { messageDetail } from './schemas.js';
import type { HistoryQuery, HistoryStore } from './store.js';

/** A page waits this long at most for the index to catch up (as an analytics report does). */
const CATCH_UP_MS = 2000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The queue ID in an MX's 250 reply: Postfix "queued as 4Xyz", Exim "id=1abc-...", Gmail "... - gsmtp" has none. */
export function mtaQueueId(reply: string | null): string | undefined {
  if (!reply) return undefined;
  const match = /queued as ([A-Za-z0-9._-]+)/i.exec(reply) ?? /\bid=([A-Za-z0-9._-]+)/i.exec(reply);
  return match?.[1];
}

export function createHistoryService(store: HistoryStore, indexer: HistoryIndexer) {
  return {
    async page(query: HistoryQuery) {
      await indexer.catchUpWithin(CATCH_UP_MS);
      const { rows, to, total } = await store.page(query);
      return {
        data: rows.map((row) => ({
          id: row.id,
          from: row.from_header,
          to: to.get(row.id) ?? [],
          subject: row.subject,
          status: row.status,
          created_at: iso(row.created_at),
        })),
        page: query.page,
        page_size: query.pageSize,
        total,
        total_pages: Math.ceil(total / query.pageSize),
        sort: query.sort,
        order: query.order,
      };
    },

    async detail(projectId: string, id: string): Promise<z.output<typeof messageDetail> | undefined> {
      const found = await store.detail(projectId, id);
      if (!found) return undefined;
      const { message, recipients } = found;
      return {
        id: message.id,
        from: message.from_header,
        recipients: recipients.map((r) => {
          const queueId = mtaQueueId(r.smtp_reply);
          return {
            email: r.email,
            type: r.kind,
            status: r.status,
            ...(queueId ? { mta_queue_id: queueId } : {}),
          };
        }),
        reply_to: message.reply_to === null ? [] : (JSON.parse(message.reply_to) as string[]),
        subject: message.subject,
        headers: JSON.parse(message.headers) as Record<string, string>,
        tags: JSON.parse(message.tags) as Record<string, string>,
        attachments: [],
        status: message.status,
        channel: message.traffic,
        created_at: iso(message.created_at),
        updated_at: iso(message.updated_at),
        ...(message.html === null ? {} : { html: message.html }),
        ...(message.text === null ? {} : { text: message.text }),
        ...(message.send_at === null ? {} : { scheduled_at: iso(message.send_at) }),
      };
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
