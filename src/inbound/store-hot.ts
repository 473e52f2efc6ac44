/**
 * The inbound store's hot path, a storage port (DESIGN.md §8) with two adapters: the writes and
 * reads every received message makes (its route, receipt, thread, message and attachments) and
 * the attachment scanner's claims and verdicts. This file is the port and its SQLite adapter,
 * statements prepared once on the raw better-sqlite3 handle; `store-hot-pg.ts` is PostgreSQL's,
 * through Kysely. `store.ts` chooses one by the engine platform/db opened.
 *
 * SQLite: writes must be called inside a transaction the caller holds (the processor's and the
 * scanner's group commits, the reply's transaction): on the one connection they then belong to
 * it, whatever `trx` is given. Reads may run at any time; at worst they see another capability's
 * transaction in flight, which routes and receipts never are.
 */
import type SQLite from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  InboundAttachmentsTable,
  InboundMessagesTable,
  InboundReceiptsTable,
  InboundThreadsTable,
  ScanState,
  ThreadMessageIdsTable,
} from '../platform/db/tables.js';
import type { RouteRow } from './store.js';

/** A scan verdict; attempts and scan_after change only when given. */
export interface ScanFields {
  readonly state: ScanState;
  readonly signature?: string | null;
  readonly detail?: string | null;
  readonly attempts?: number;
  readonly scanAfter?: number;
  readonly at: number;
}

/** An attachment due for a scan, and the attempts already counted against it. */
export interface DueScan {
  readonly id: string;
  readonly scan_attempts: number;
}

/** The port: what every received message and every scan verdict runs. `trx` is the caller's transaction. */
export interface InboundHotStore {
  /** The route of an address: the exact local part before the domain's catch-all (''). */
  routeByAddress(domain: string, local: string): Promise<RouteRow | undefined>;
  /** The kind of a transaction's receipt (`routed`, ..., `failed`), undefined while it has none. */
  receiptKind(id: string): Promise<string | undefined>;
  /** Fails on a receipt already written (its primary key): a transaction's effects commit once. */
  insertReceipt(trx: Db, row: Insertable<InboundReceiptsTable>): Promise<void>;
  insertMessage(trx: Db, row: Insertable<InboundMessagesTable>): Promise<void>;
  insertAttachments(trx: Db, rows: readonly Insertable<InboundAttachmentsTable>[]): Promise<void>;
  /**
   * The thread of the first of `keys` that is known, in the order given. First in a transaction
   * that assigns threads: on PostgreSQL it waits for other nodes' assignments to commit, so that
   * a reply and the message it answers, processed at once on two nodes, share a thread.
   */
  threadOf(trx: Db, projectId: string, keys: readonly string[]): Promise<string | undefined>;
  insertThread(trx: Db, row: Insertable<InboundThreadsTable>): Promise<void>;
  /** Moves a thread's last message time forward (never back: mail is processed out of order). */
  touchThread(trx: Db, id: string, at: number): Promise<void>;
  /** Deletes a thread that holds nothing (one that lost the race for its first key). */
  deleteThread(trx: Db, id: string): Promise<void>;
  /**
   * Records a Message-ID of a thread unless the project already has it (a unique key, not a read
   * first); returns the thread that holds it, this one or the one that had it.
   */
  addThreadMessageId(trx: Db, row: Insertable<ThreadMessageIdsTable>): Promise<string>;
  /**
   * Up to `limit` pending attachments due for a scan at `now`, oldest due first. On PostgreSQL
   * they are claimed until `now + leaseMs` (`SKIP LOCKED`), so two nodes scan different ones.
   */
  claimScans(now: number, limit: number, leaseMs: number): Promise<DueScan[]>;
  /** Gives back claimed attachments that got no verdict, due again at `now` (nothing on SQLite). */
  releaseScans(ids: readonly string[], now: number): Promise<void>;
  /** Writes a scan verdict (inside the scanner's transaction `trx`); only a pending attachment changes. */
  recordScan(trx: Db, id: string, fields: ScanFields): Promise<void>;
  attachmentContent(id: string): Promise<Buffer | undefined>;
}

const insertSql = (table: string, columns: readonly string[], orIgnore = false) =>
  `insert ${orIgnore ? 'or ignore ' : ''}into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns
    .map((c) => `@${c}`)
    .join(', ')})`;

const MESSAGE_COLUMNS = [
  'id',
  'project_id',
  'receipt_id',
  'route_id',
  'thread_id',
  'mail_from',
  'rcpt_to',
  'from_header',
  'from_email',
  'to',
  'cc',
  'reply_to',
  'subject',
  'text',
  'html',
  'headers',
  'date',
  'message_id_header',
  'in_reply_to',
  'references',
  'auth',
  'remote_ip',
  'helo',
  'tls',
  'size_bytes',
  'created_at',
  'parse_error',
  'processing_error',
] as const;
const ATTACHMENT_COLUMNS = [
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
  'content',
  'created_at',
] as const;
const RECEIPT_COLUMNS = [
  'id',
  'kind',
  'mail_from',
  'rcpt_to',
  'remote_ip',
  'size_bytes',
  'outcome',
  'received_at',
  'processed_at',
] as const;

function prepare(sqlite: SQLite.Database) {
  return {
    routeByAddress: sqlite.prepare<[string, string], RouteRow>(
      // The exact local part sorts before the catch-all ('').
      `select * from inbound_routes where domain = ? and local_part in (?, '') order by local_part desc limit 1`,
    ),
    receiptKind: sqlite.prepare<[string], { kind: string }>('select kind from inbound_receipts where id = ?'),
    insertReceipt: sqlite.prepare(insertSql('inbound_receipts', RECEIPT_COLUMNS)),
    insertMessage: sqlite.prepare(insertSql('inbound_messages', MESSAGE_COLUMNS)),
    insertAttachment: sqlite.prepare(insertSql('inbound_attachments', ATTACHMENT_COLUMNS)),
    threadOf: sqlite.prepare<[string, string], { thread_id: string }>(
      'select thread_id from thread_message_ids where project_id = ? and message_id_header = ?',
    ),
    insertThread: sqlite.prepare(
      insertSql('inbound_threads', ['id', 'project_id', 'subject', 'created_at', 'last_message_at']),
    ),
    touchThread: sqlite.prepare<[number, string]>(
      'update inbound_threads set last_message_at = max(last_message_at, ?) where id = ?',
    ),
    deleteThread: sqlite.prepare<[string]>('delete from inbound_threads where id = ?'),
    addThreadMessageId: sqlite.prepare(
      insertSql(
        'thread_message_ids',
        ['project_id', 'message_id_header', 'thread_id', 'direction', 'ref_id', 'at'],
        true,
      ),
    ),
    // coalesce keeps attempts and scan_after when a verdict does not set them.
    recordScan: sqlite.prepare(
      `update inbound_attachments set scan_state = @state, scan_signature = @signature, scan_detail = @detail,
         scan_attempts = coalesce(@attempts, scan_attempts), scan_after = coalesce(@scanAfter, scan_after),
         scanned_at = @scannedAt
       where id = @id and scan_state = 'pending'`,
    ),
    attachmentContent: sqlite.prepare<[string], { content: Buffer }>(
      'select content from inbound_attachments where id = ?',
    ),
  };
}

/** The SQLite adapter: prepared statements, and Kysely for the scanner's claim (no hot path). */
export function createSqliteHotStore(db: Db, sqlite: SQLite.Database): InboundHotStore {
  let prepared: ReturnType<typeof prepare> | undefined;
  // Prepared on first use: the tables exist only once migrations ran.
  const stmt = () => {
    prepared ??= prepare(sqlite);
    return prepared;
  };
  const threadOf = (projectId: string, keys: readonly string[]): string | undefined => {
    for (const key of keys) {
      const row = stmt().threadOf.get(projectId, key);
      if (row) return row.thread_id;
    }
    return undefined;
  };
  return {
    routeByAddress: async (domain, local) => stmt().routeByAddress.get(domain, local),
    receiptKind: async (id) => stmt().receiptKind.get(id)?.kind,
    insertReceipt: async (_trx, row) => {
      stmt().insertReceipt.run({ outcome: '{}', ...row });
    },
    insertMessage: async (_trx, row) => {
      stmt().insertMessage.run(row);
    },
    insertAttachments: async (_trx, rows) => {
      for (const row of rows) stmt().insertAttachment.run(row);
    },
    threadOf: async (_trx, projectId, keys) => threadOf(projectId, keys),
    insertThread: async (_trx, row) => {
      stmt().insertThread.run(row);
    },
    touchThread: async (_trx, id, at) => {
      stmt().touchThread.run(at, id);
    },
    deleteThread: async (_trx, id) => {
      stmt().deleteThread.run(id);
    },
    addThreadMessageId: async (_trx, row) => {
      if (stmt().addThreadMessageId.run(row).changes > 0) return row.thread_id;
      return threadOf(row.project_id, [row.message_id_header]) ?? row.thread_id;
    },
    // One node scans everything: a plain read, nothing to claim.
    claimScans: (now, limit) =>
      db
        .selectFrom('inbound_attachments')
        .select(['id', 'scan_attempts'])
        .where('scan_state', '=', 'pending')
        .where('scan_after', '<=', now)
        .orderBy('scan_after')
        .orderBy('id')
        .limit(limit)
        .execute(),
    releaseScans: async () => {},
    recordScan: async (_trx, id, fields) => {
      stmt().recordScan.run({
        id,
        state: fields.state,
        signature: fields.signature ?? null,
        detail: fields.detail ?? null,
        attempts: fields.attempts ?? null,
        scanAfter: fields.scanAfter ?? null,
        scannedAt: fields.state === 'pending' ? null : fields.at,
      });
    },
    attachmentContent: async (id) => stmt().attachmentContent.get(id)?.content,
  };
}
