/**
 * The only module that queries the inbound tables (migration 0007): routes, receipts, threads and
 * their Message-ID index, received messages, attachments and reply idempotency records. Writes
 * that belong together take the caller's transaction (`executor`).
 */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  InboundAttachmentsTable,
  InboundMessagesTable,
  InboundReceiptsTable,
  InboundRoutesTable,
  InboundThreadsTable,
  ScanState,
  ThreadMessageIdsTable,
} from '../platform/db/tables.js';

export type RouteRow = Selectable<InboundRoutesTable>;
export type MessageRow = Selectable<InboundMessagesTable>;
export type ThreadRow = Selectable<InboundThreadsTable>;
export type AttachmentMeta = Omit<Selectable<InboundAttachmentsTable>, 'content'>;
export type ThreadMemberRow = Selectable<ThreadMessageIdsTable>;

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

export function createInboundStore(db: Db) {
  return {
    // Routes
    async insertRoute(row: Insertable<InboundRoutesTable>): Promise<void> {
      await db.insertInto('inbound_routes').values(row).execute();
    },
    routeByAddress(domain: string, local: string): Promise<RouteRow | undefined> {
      return db
        .selectFrom('inbound_routes')
        .selectAll()
        .where('domain', '=', domain)
        .where('local_part', 'in', [local, ''])
        .orderBy('local_part', 'desc') // the exact local part before the catch-all ('')
        .limit(1)
        .executeTakeFirst();
    },
    listRoutes(projectId: string): Promise<RouteRow[]> {
      return db
        .selectFrom('inbound_routes')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
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
    async receiptExists(id: string): Promise<boolean> {
      return (
        (await db.selectFrom('inbound_receipts').select('id').where('id', '=', id).executeTakeFirst()) !==
        undefined
      );
    },
    async insertReceipt(executor: Db, row: Insertable<InboundReceiptsTable>): Promise<void> {
      await executor.insertInto('inbound_receipts').values(row).execute();
    },

    // Threads
    async threadOfMessageIds(
      executor: Db,
      projectId: string,
      keys: readonly string[],
    ): Promise<string | undefined> {
      if (keys.length === 0) return undefined;
      const row = await executor
        .selectFrom('thread_message_ids')
        .select('thread_id')
        .where('project_id', '=', projectId)
        .where('message_id_header', 'in', [...keys])
        .orderBy('at')
        .limit(1)
        .executeTakeFirst();
      return row?.thread_id;
    },
    async insertThread(executor: Db, row: Insertable<InboundThreadsTable>): Promise<void> {
      await executor.insertInto('inbound_threads').values(row).execute();
    },
    async touchThread(executor: Db, id: string, at: number): Promise<void> {
      await executor
        .updateTable('inbound_threads')
        .set({ last_message_at: at })
        .where('id', '=', id)
        .execute();
    },
    async addThreadMessageId(executor: Db, row: Insertable<ThreadMessageIdsTable>): Promise<void> {
      await executor
        .insertInto('thread_message_ids')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'message_id_header']).doNothing())
        .execute();
    },
    getThread(projectId: string, id: string): Promise<ThreadRow | undefined> {
      return db
        .selectFrom('inbound_threads')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    outboundMembers(threadId: string): Promise<ThreadMemberRow[]> {
      return db
        .selectFrom('thread_message_ids')
        .selectAll()
        .where('thread_id', '=', threadId)
        .where('direction', '=', 'outbound')
        .orderBy('at')
        .execute();
    },

    // Messages
    async insertMessage(executor: Db, row: Insertable<InboundMessagesTable>): Promise<void> {
      await executor.insertInto('inbound_messages').values(row).execute();
    },
    listMessages(projectId: string, limit: number, after: string | undefined): Promise<MessageRow[]> {
      let query = db.selectFrom('inbound_messages').selectAll().where('project_id', '=', projectId);
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
    messagesInThread(threadId: string): Promise<MessageRow[]> {
      return db
        .selectFrom('inbound_messages')
        .selectAll()
        .where('thread_id', '=', threadId)
        .orderBy('id')
        .execute();
    },

    // Attachments
    async insertAttachments(
      executor: Db,
      rows: readonly Insertable<InboundAttachmentsTable>[],
    ): Promise<void> {
      if (rows.length > 0)
        await executor
          .insertInto('inbound_attachments')
          .values([...rows])
          .execute();
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
      const row = await db
        .selectFrom('inbound_attachments')
        .select('content')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.content;
    },
    async countPending(): Promise<number> {
      const row = await db
        .selectFrom('inbound_attachments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_state', '=', 'pending')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async recordScan(
      id: string,
      fields: {
        state: ScanState;
        signature?: string | null;
        detail?: string | null;
        attempts?: number;
        scanAfter?: number;
        at: number;
      },
    ): Promise<void> {
      await db
        .updateTable('inbound_attachments')
        .set({
          scan_state: fields.state,
          scan_signature: fields.signature ?? null,
          scan_detail: fields.detail ?? null,
          ...(fields.attempts === undefined ? {} : { scan_attempts: fields.attempts }),
          ...(fields.scanAfter === undefined ? {} : { scan_after: fields.scanAfter }),
          scanned_at: fields.state === 'pending' ? null : fields.at,
        })
        .where('id', '=', id)
        .where('scan_state', '=', 'pending')
        .execute();
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
    findReply(projectId: string, key: string) {
      return db
        .selectFrom('inbound_replies')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    },
    async insertReply(
      executor: Db,
      row: {
        project_id: string;
        idempotency_key: string;
        inbound_id: string;
        message_id: string;
        created_at: number;
      },
    ): Promise<void> {
      await executor
        .insertInto('inbound_replies')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'idempotency_key']).doNothing())
        .execute();
    },
  };
}

export type InboundStore = ReturnType<typeof createInboundStore>;
