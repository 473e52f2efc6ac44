/**
 * The inbound store's reads of threads (migration 0007): a thread, and its received and sent
 * messages one page at a time, oldest first. Part of `store.ts` (spread into it), kept apart to
 * keep that file small; like it, the only code querying these tables.
 */
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  Database,
  InboundMessagesTable,
  InboundThreadsTable,
  KeyMode,
  ThreadMessageIdsTable,
} from '../platform/db/tables.js';

type MessageRow = Selectable<InboundMessagesTable>;
type ThreadRow = Selectable<InboundThreadsTable>;
type ThreadMemberRow = Selectable<ThreadMessageIdsTable>;

/**
 * What lists and threads show of a received message. Never the text, html or headers: those are
 * up to the message cap (25 MB) each, and a page of 50 of them would exhaust the heap.
 */
export const summaryColumns = [
  'id',
  'thread_id',
  'from_header',
  'to',
  'cc',
  'subject',
  'created_at',
] as const;
export type MessageSummaryRow = Pick<MessageRow, (typeof summaryColumns)[number]>;

/** A position in a thread (oldest first): after the message `id` made at `at`. */
export interface ThreadCursor {
  readonly at: number;
  readonly id: string;
}

/**
 * A thread member that is a message sent with a key of `mode`: one primary-key read of `messages`
 * per member (an IN over the project's messages of a mode would read them all).
 */
const sentInMode =
  (mode: KeyMode) =>
  ({ exists, selectFrom }: ExpressionBuilder<Database, 'thread_message_ids'>) =>
    exists(
      selectFrom('messages')
        .select('messages.id')
        .whereRef('messages.id', '=', 'thread_message_ids.ref_id')
        .where('messages.mode', '=', mode),
    );

export function createThreadReads(db: Db) {
  return {
    getThread(projectId: string, id: string): Promise<ThreadRow | undefined> {
      return db
        .selectFrom('inbound_threads')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /**
     * Sent messages of a thread sent with keys of `mode` (a key sees only its own mode's messages,
     * as `GET /v1/emails` does), oldest first, after `cursor` when given.
     */
    outboundMembers(
      threadId: string,
      mode: KeyMode,
      limit: number,
      cursor?: ThreadCursor,
    ): Promise<ThreadMemberRow[]> {
      let query = db
        .selectFrom('thread_message_ids')
        .selectAll()
        .where('thread_id', '=', threadId)
        .where('direction', '=', 'outbound')
        .where(sentInMode(mode));
      if (cursor)
        query = query.where((eb) =>
          eb.or([eb('at', '>', cursor.at), eb.and([eb('at', '=', cursor.at), eb('ref_id', '>', cursor.id)])]),
        );
      return query.orderBy('at').orderBy('ref_id').limit(limit).execute();
    },
    /**
     * When the message `id` (inb_, or msg_ sent in `mode`) joined the thread, or undefined when it
     * is not in it as a key of `mode` sees the thread.
     */
    async threadPosition(threadId: string, mode: KeyMode, id: string): Promise<number | undefined> {
      const inbound = await db
        .selectFrom('inbound_messages')
        .select('created_at')
        .where('thread_id', '=', threadId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (inbound) return inbound.created_at;
      const member = await db
        .selectFrom('thread_message_ids')
        .select('at')
        .where('thread_id', '=', threadId)
        .where('direction', '=', 'outbound')
        .where('ref_id', '=', id)
        .where(sentInMode(mode))
        .executeTakeFirst();
      return member?.at;
    },

    /** Received messages of a thread, oldest first, after `cursor` when given. */
    messagesInThread(threadId: string, limit: number, cursor?: ThreadCursor): Promise<MessageSummaryRow[]> {
      let query = db.selectFrom('inbound_messages').select(summaryColumns).where('thread_id', '=', threadId);
      if (cursor)
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', cursor.at),
            eb.and([eb('created_at', '=', cursor.at), eb('id', '>', cursor.id)]),
          ]),
        );
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
    },
  };
}
