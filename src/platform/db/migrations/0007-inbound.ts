/**
 * Inbound mail: routes (which addresses of a verified domain a project receives), one receipt per
 * accepted SMTP transaction (so a spooled transaction is processed once even after a crash),
 * received messages and their attachments (bytes kept in the store, released only once ClamAV
 * called them clean), threads and the Message-ID index that joins inbound and outbound mail, and
 * the idempotency records of replies.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    // '' is the catch-all route of the domain; a local part is stored lower-cased.
    .addColumn('local_part', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  // One address routes to one project: RCPT TO must know where a message goes before DATA.
  await db.schema
    .createIndex('inbound_routes_address')
    .on('inbound_routes')
    .columns(['domain', 'local_part'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbound_routes_project')
    .on('inbound_routes')
    .columns(['project_id', 'id'])
    .execute();

  await db.schema
    .createTable('inbound_receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mail_from', 'text', (c) => c.notNull())
    .addColumn('rcpt_to', 'text', (c) => c.notNull())
    .addColumn('remote_ip', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('received_at', 'integer', (c) => c.notNull())
    .addColumn('processed_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('inbound_threads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_message_at', 'integer', (c) => c.notNull())
    .execute();

  // Every Message-ID Posthorn knows in a thread, inbound or outbound: what In-Reply-To and
  // References are matched against (RFC 5322 §3.6.4).
  await db.schema
    .createTable('thread_message_ids')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('message_id_header', 'text', (c) => c.notNull())
    .addColumn('thread_id', 'text', (c) => c.notNull().references('inbound_threads.id').onDelete('cascade'))
    .addColumn('direction', 'text', (c) => c.notNull().check(sql`direction in ('inbound', 'outbound')`))
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('thread_message_ids_pk', ['project_id', 'message_id_header'])
    .execute();
  await db.schema
    .createIndex('thread_message_ids_thread')
    .on('thread_message_ids')
    .columns(['thread_id', 'at'])
    .execute();

  await db.schema
    .createTable('inbound_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('route_id', 'text')
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('mail_from', 'text', (c) => c.notNull())
    .addColumn('rcpt_to', 'text', (c) => c.notNull())
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('cc', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('html', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('date', 'integer')
    .addColumn('message_id_header', 'text')
    .addColumn('in_reply_to', 'text')
    .addColumn('references', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('remote_ip', 'text', (c) => c.notNull())
    .addColumn('helo', 'text', (c) => c.notNull())
    .addColumn('tls', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_messages_project')
    .on('inbound_messages')
    .columns(['project_id', 'id'])
    .execute();
  await db.schema
    .createIndex('inbound_messages_thread')
    .on('inbound_messages')
    .columns(['thread_id', 'id'])
    .execute();

  await db.schema
    .createTable('inbound_attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull().references('inbound_messages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('disposition', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('scan_state', 'text', (c) =>
      c.notNull().check(sql`scan_state in ('pending', 'clean', 'infected', 'error')`),
    )
    .addColumn('scan_signature', 'text')
    .addColumn('scan_detail', 'text')
    .addColumn('scan_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scan_after', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scanned_at', 'integer')
    .addColumn('content', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_attachments_message')
    .on('inbound_attachments')
    .column('message_id')
    .execute();
  // The scanner reads only pending attachments in due order.
  await db.schema
    .createIndex('inbound_attachments_pending')
    .on('inbound_attachments')
    .columns(['scan_after', 'id'])
    .where(sql.ref('scan_state'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('inbound_replies')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('inbound_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_replies_pk', ['project_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'inbound_replies',
    'inbound_attachments',
    'inbound_messages',
    'thread_message_ids',
    'inbound_threads',
    'inbound_receipts',
    'inbound_routes',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
