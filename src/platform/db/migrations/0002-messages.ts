/**
 * The message pipeline's rows: messages, their recipients, delivery jobs (one per message and
 * recipient domain; the queue) and the event log (the one record shape every outcome appends).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text')
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('traffic', 'text', (c) => c.notNull().defaultTo('transactional'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_domain', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('template_id', 'text')
    .addColumn('template_version', 'integer')
    .addColumn('variables', 'text')
    .addColumn('send_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('messages_project_id').on('messages').columns(['project_id', 'id']).execute();
  await db.schema
    .createIndex('messages_scheduled')
    .on('messages')
    .column('send_at')
    .where(sql.ref('status'), '=', 'scheduled')
    .execute();

  await db.schema
    .createTable('message_recipients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('to', 'cc', 'bcc')`))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('display', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('smtp_code', 'integer')
    .addColumn('smtp_reply', 'text')
    .addColumn('bounce_category', 'text')
    .addColumn('delivered_at', 'integer')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('message_recipients_message')
    .on('message_recipients')
    .column('message_id')
    .execute();
  await db.schema
    .createIndex('message_recipients_project_email')
    .on('message_recipients')
    .columns(['project_id', 'email'])
    .execute();

  await db.schema
    .createTable('delivery_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('traffic', 'text', (c) => c.notNull().defaultTo('transactional'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('scheduled', 'queued', 'done', 'cancelled')`),
    )
    .addColumn('lane', 'text')
    .addColumn('due_at', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  // The claim query reads only queued jobs in due order; done jobs never slow it down.
  await db.schema
    .createIndex('delivery_jobs_due')
    .on('delivery_jobs')
    .columns(['traffic', 'due_at'])
    .where(sql.ref('state'), '=', 'queued')
    .execute();
  await db.schema.createIndex('delivery_jobs_message').on('delivery_jobs').column('message_id').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('recipient', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_project_created')
    .on('events')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema.createIndex('events_message').on('events').column('message_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'delivery_jobs', 'message_recipients', 'messages']) {
    await db.schema.dropTable(table).execute();
  }
}
