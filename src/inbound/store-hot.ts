/**
 * The statements every received message runs, prepared once on the raw better-sqlite3 handle (the
 * rest of the inbound store goes through Kysely, which compiles and prepares each query anew).
 * Together with `store.ts` the only code querying the inbound tables.
 *
 * Writes must be called inside a transaction the caller holds (the processor's and the scanner's
 * group commits): on the one connection they then belong to it. Reads may run at any time; at worst
 * they see another capability's transaction in flight, which routes and receipts never are.
 */
import type SQLite from 'better-sqlite3';
import type { Insertable } from 'kysely';
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
      'update inbound_threads set last_message_at = ? where id = ?',
    ),
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

export function createHotStatements(sqlite: SQLite.Database) {
  let prepared: ReturnType<typeof prepare> | undefined;
  // Prepared on first use: the tables exist only once migrations ran.
  const stmt = () => {
    prepared ??= prepare(sqlite);
    return prepared;
  };
  return {
    routeByAddress: (domain: string, local: string) => stmt().routeByAddress.get(domain, local),
    receiptKind: (id: string) => stmt().receiptKind.get(id)?.kind,
    insertReceipt: (row: Insertable<InboundReceiptsTable>) => {
      stmt().insertReceipt.run({ outcome: '{}', ...row });
    },
    insertMessage: (row: Insertable<InboundMessagesTable>) => {
      stmt().insertMessage.run(row);
    },
    insertAttachment: (row: Insertable<InboundAttachmentsTable>) => {
      stmt().insertAttachment.run(row);
    },
    /** The thread of the first of `keys` that is known, in the order given. */
    threadOf: (projectId: string, keys: readonly string[]): string | undefined => {
      for (const key of keys) {
        const row = stmt().threadOf.get(projectId, key);
        if (row) return row.thread_id;
      }
      return undefined;
    },
    insertThread: (row: Insertable<InboundThreadsTable>) => {
      stmt().insertThread.run(row);
    },
    touchThread: (id: string, at: number) => {
      stmt().touchThread.run(at, id);
    },
    addThreadMessageId: (row: Insertable<ThreadMessageIdsTable>) => {
      stmt().addThreadMessageId.run(row);
    },
    recordScan: (id: string, fields: ScanFields) => {
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
    attachmentContent: (id: string): Buffer | undefined => stmt().attachmentContent.get(id)?.content,
  };
}

export type HotStatements = ReturnType<typeof createHotStatements>;
