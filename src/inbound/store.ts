/**
 * The only module that queries the inbound tables (migration 0007): routes, receipts, threads and
 * their Message-ID index, received messages, attachments and reply idempotency records; with its
 * parts `store-hot.ts` (the hot path's storage port and its SQLite adapter, `store-hot-pg.ts` its
 * PostgreSQL one, chosen here by the engine platform/db opened) and `store-threads.ts` (thread
 * reads). Writes that belong together take the caller's transaction (`trx`, `executor`).
 */
import type { Insertable, Selectable } from 'kysely';
import type { Db, Store } from '../platform/db/database.js';
import type {
  InboundAttachmentsTable,
  InboundMessagesTable,
  InboundRepliesTable,
  InboundRoutesTable,
  KeyMode,
} from '../platform/db/tables.js';
import { idFloor } from '../platform/ids.js';
import { createSqliteHotStore, type InboundHotStore } from './store-hot.js';
import { createPgHotStore, textSafe } from './store-hot-pg.js';
import { createThreadReads, type MessageSummaryRow, summaryColumns } from './store-threads.js';

export type { MessageSummaryRow, ThreadCursor } from './store-threads.js';

export type RouteRow = Selectable<InboundRoutesTable>;
export type MessageRow = Selectable<InboundMessagesTable>;
export type AttachmentMeta = Omit<Selectable<InboundAttachmentsTable>, 'content'>;

const attachmentMetaColumns = [
  'id',
  'project_id',
  'message_id',
  'position',
  'filename',
  'content_type',
  'content_id',
  'disposition',
  'size_bytes',
  'sha256',
  'scan_state',
  'scan_signature',
  'scan_detail',
  'scan_attempts',
  'scan_after',
  'scanned_at',
  'created_at',
] as const;

export function createInboundStore(store: Pick<Store, 'engine' | 'db' | 'sqlite'>) {
  const { db } = store;
  const hot: InboundHotStore =
    store.engine === 'postgresql' ? createPgHotStore(db) : createSqliteHotStore(db, store.sqlite);
  return {
    // Routes
    async insertRoute(row: Insertable<InboundRoutesTable>): Promise<void> {
      await db.insertInto('inbound_routes').values(row).execute();
    },
    routeByAddress: hot.routeByAddress,
    listRoutes(projectId: string): Promise<RouteRow[]> {
      return db
        .selectFrom('inbound_routes')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
    },
    /** Every domain some project routes received mail for, in order. */
    async routedDomains(): Promise<string[]> {
      const rows = await db
        .selectFrom('inbound_routes')
        .select('domain')
        .distinct()
        .orderBy('domain')
        .execute();
      return rows.map((row) => row.domain);
    },
    async deleteRoute(projectId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('inbound_routes')
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    // Receipts
    receiptKind: hot.receiptKind,
    /** Like every write below: call inside the caller's transaction `trx` (store-hot.ts). */
    insertReceipt: hot.insertReceipt,

    // Threads
    threadOfMessageIds: hot.threadOf,
    insertThread: hot.insertThread,
    touchThread: hot.touchThread,
    deleteThread: hot.deleteThread,
    addThreadMessageId: hot.addThreadMessageId,
    ...createThreadReads(db),

    // Messages
    insertMessage: hot.insertMessage,
    listMessages(projectId: string, limit: number, after: string | undefined): Promise<MessageSummaryRow[]> {
      let query = db
        .selectFrom('inbound_messages')
        .select(summaryColumns)
        .where('project_id', '=', projectId);
      // Newest first; `after` is the last ID of the previous page.
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    },
    getMessage(projectId: string, id: string): Promise<MessageRow | undefined> {
      return db
        .selectFrom('inbound_messages')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** A message stored without processing and its first attachment's content, the whole message. */
    async unprocessed(id: string): Promise<{ row: MessageRow; original: Buffer } | undefined> {
      const row = await db
        .selectFrom('inbound_messages')
        .selectAll()
        .where('id', '=', id)
        .where('processing_error', 'is not', null)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const original = await db
        .selectFrom('inbound_attachments')
        .select('content')
        .where('message_id', '=', id)
        .orderBy('position')
        .executeTakeFirst();
      return original === undefined ? undefined : { row, original: original.content };
    },
    /**
     * Replaces a message stored without processing by its processed form, in `trx`: its parsed
     * columns, `processing_error` cleared, its attachments replaced. False when it is no longer
     * unprocessed (another retry got there first).
     */
    async replaceUnprocessed(
      trx: Db,
      id: string,
      columns: Partial<Insertable<InboundMessagesTable>>,
      attachments: readonly Insertable<InboundAttachmentsTable>[],
    ): Promise<boolean> {
      const updated = await trx
        .updateTable('inbound_messages')
        .set(
          store.engine === 'postgresql'
            ? textSafe({ ...columns, processing_error: null })
            : { ...columns, processing_error: null },
        )
        .where('id', '=', id)
        .where('processing_error', 'is not', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('inbound_attachments').where('message_id', '=', id).execute();
      await hot.insertAttachments(trx, attachments);
      return true;
    },
    // Attachments
    insertAttachments: hot.insertAttachments,
    attachmentsOf(messageIds: readonly string[]): Promise<AttachmentMeta[]> {
      if (messageIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('inbound_attachments')
        .select(attachmentMetaColumns)
        .where('message_id', 'in', [...messageIds])
        .orderBy('message_id')
        .orderBy('position')
        .execute();
    },
    claimScans: hot.claimScans,
    releaseScans: hot.releaseScans,
    attachmentContent: hot.attachmentContent,
    async countPending(): Promise<number> {
      const row = await db
        .selectFrom('inbound_attachments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_state', '=', 'pending')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    recordScan: hot.recordScan,
    attachmentForDownload(projectId: string, id: string) {
      return db
        .selectFrom('inbound_attachments')
        .select(['id', 'filename', 'content_type', 'scan_state', 'content'])
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    // Replies
    /** Keys are per project and mode: a test key's reply never answers a live key. */
    findReply(projectId: string, mode: KeyMode, key: string) {
      return db
        .selectFrom('inbound_replies')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('mode', '=', mode)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    },
    async insertReply(executor: Db, row: InboundRepliesTable): Promise<void> {
      await executor
        .insertInto('inbound_replies')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'mode', 'idempotency_key']).doNothing())
        .execute();
    },

    /**
     * Retention (`retention.messages_days`) of received mail, up to `batch` rows per call: the
     * text and html of messages received before `cutoff` are cleared; their headers, addresses,
     * authentication results and thread stay, so lists and threads still read.
     */
    async purgeBodiesBefore(cutoff: number, batch = 500): Promise<number> {
      const result = await db
        .updateTable('inbound_messages')
        .set({ text: null, html: null })
        .where('id', 'in', (q) =>
          q
            .selectFrom('inbound_messages')
            .select('id')
            .where('id', '<', idFloor('inb', cutoff))
            .where((eb) => eb.or([eb('text', 'is not', null), eb('html', 'is not', null)]))
            .orderBy('id')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Retention: attachments (content and record) of messages received before `cutoff`. */
    async purgeAttachmentsBefore(cutoff: number, batch = 200): Promise<number> {
      const result = await db
        .deleteFrom('inbound_attachments')
        .where('id', 'in', (q) =>
          q
            .selectFrom('inbound_attachments')
            .select('id')
            .where('id', '<', idFloor('att', cutoff))
            .orderBy('id')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type InboundStore = ReturnType<typeof createInboundStore>;
