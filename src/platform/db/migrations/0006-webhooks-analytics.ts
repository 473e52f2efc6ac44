/**
 * Webhook endpoints, their outgoing messages (one event to one endpoint, with the exact body that
 * is signed) and every delivery attempt; the cursors of event-log consumers; and the analytics
 * projection (one row per recipient, and daily aggregates per project and provider lane).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_cursors')
    .addColumn('consumer', 'text', (c) => c.primaryKey())
    .addColumn('last_event_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('enabled', 'disabled')`))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'integer')
    .addColumn('failing_since', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_project')
    .on('webhook_endpoints')
    .columns(['project_id', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  // One message per event and endpoint, so a fan-out that runs twice cannot send twice.
  await db.schema
    .createIndex('webhook_messages_endpoint_event')
    .on('webhook_messages')
    .columns(['endpoint_id', 'event_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('webhook_messages.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('event', 'retry', 'replay')`))
    .addColumn('replay_of', 'text')
    .addColumn('previous_attempt_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'succeeded', 'failed')`))
    .addColumn('due_at', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer')
    .addColumn('url', 'text')
    .addColumn('requested_at', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_attempts_message')
    .on('webhook_attempts')
    .column('message_id')
    .execute();
  // The dispatcher reads only pending attempts, per endpoint in due order.
  await db.schema
    .createIndex('webhook_attempts_due')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'due_at'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('analytics_recipients')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('lane', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'integer')
    .addColumn('delivered_at', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('opened', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clicked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_recipients_pk', ['message_id', 'recipient'])
    .modifyEnd(sql`without rowid`)
    .execute();
  await db.schema.createIndex('analytics_recipients_day').on('analytics_recipients').column('day').execute();

  await db.schema
    .createTable('analytics_daily')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('lane', 'text', (c) => c.notNull())
    .addColumn('accepted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deferred', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complained', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('suppressed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unique_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unique_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('latency', 'text', (c) => c.notNull().defaultTo('[]'))
    .addPrimaryKeyConstraint('analytics_daily_pk', ['project_id', 'day', 'lane'])
    .modifyEnd(sql`without rowid`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'analytics_daily',
    'analytics_recipients',
    'webhook_attempts',
    'webhook_messages',
    'webhook_endpoints',
    'event_cursors',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
