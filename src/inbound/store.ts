/**
 * The only module that queries the inbound tables (migration 0007): routes, receipts, threads and
 * their Message-ID index, received messages, attachments and reply idempotency records; with its
 * parts `store-hot.ts` (prepared statements of every received message) and `store-threads.ts`
 * (thread reads). Writes that belong together take the caller's transaction (`executor`).
 */
import type SQLite from 'better-sqlite3';
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  InboundAttachmentsTable,
  InboundMessagesTable,
  InboundReceiptsTable,
  InboundRepliesTable,
  InboundRoutesTable,
  InboundThreadsTable,
  KeyMode,
  ThreadMessageIdsTable,
} from '../platform/db/tables.js';
import { idFloor } from '../platform/ids.js';
import { createHotStatements, type ScanFields } from './store-hot.js';
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

export function createInboundStore(db: Db, sqlite: SQLite.Database) {
  const hot = createHotStatements(sqlite);
  return {
    // Routes
    async insertRoute(row: Insertable<InboundRoutesTable>): Promise<void> {
      await db.insertInto('inbound_routes').values(row).execute();
    },
    async routeByAddress(domain: string, local: string): Promise<RouteRow | undefined> {
      return hot.routeByAddress(domain, local);
    },
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
    /** The kind of a transaction's receipt (`routed`, ..., `failed`), undefined while it has none. */
    async receiptKind(id: string): Promise<string | undefined> {
      return hot.receiptKind(id);
    },
    /** Like every write below: call inside the caller's transaction `_trx` (store-hot.ts). */
    async insertReceipt(_trx: Db, row: Insertable<InboundReceiptsTable>): Promise<void> {
      hot.insertReceipt(row);
    },

    // Threads
    async threadOfMessageIds(
      _trx: Db,
      projectId: string,
      keys: readonly string[],
    ): Promise<string | undefined> {
      return hot.threadOf(projectId, keys);
    },
    async insertThread(_trx: Db, row: Insertable<InboundThreadsTable>): Promise<void> {
      hot.insertThread(row);
    },
    async touchThread(_trx: Db, id: string, at: number): Promise<void> {
      hot.touchThread(id, at);
    },
    async addThreadMessageId(_trx: Db, row: Insertable<ThreadMessageIdsTable>): Promise<void> {
      hot.addThreadMessageId(row);
    },
    ...createThreadReads(db),

    // Messages
    async insertMessage(_trx: Db, row: Insertable<InboundMessagesTable>): Promise<void> {
      hot.insertMessage(row);
    },
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
    // Attachments
    async insertAttachments(_trx: Db, rows: readonly Insertable<InboundAttachmentsTable>[]): Promise<void> {
      for (const row of rows) hot.insertAttachment(row);
    },
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
    dueForScan(now: number, limit: number) {
      return db
        .selectFrom('inbound_attachments')
        .select(['id', 'scan_attempts'])
        .where('scan_state', '=', 'pending')
        .where('scan_after', '<=', now)
        .orderBy('scan_after')
        .orderBy('id')
        .limit(limit)
        .execute();
    },
    async attachmentContent(id: string): Promise<Buffer | undefined> {
      return hot.attachmentContent(id);
    },
    async countPending(): Promise<number> {
      const row = await db
        .selectFrom('inbound_attachments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_state', '=', 'pending')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Writes a scan verdict (inside the scanner's transaction `_trx`); only a pending attachment changes. */
    async recordScan(id: string, fields: ScanFields, _trx: Db): Promise<void> {
      hot.recordScan(id, fields);
    },
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
