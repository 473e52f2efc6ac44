/**
 * The public status area: incidents and maintenance windows with their updates (each update is one
 * item of the RSS feed and one notice to every verified subscriber), status subscriptions (email or
 * webhook; tokens stored as SHA-256 hashes, webhook signing secrets sealed), and the notices queued
 * for each subscriber, one per update and subscriber.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('status_incidents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('incident', 'maintenance')`))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('impact', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('components', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull().check(sql`origin in ('operator', 'automatic')`))
    .addColumn('auto_component', 'text')
    .addColumn('starts_at', 'integer')
    .addColumn('ends_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('closed_at', 'integer')
    .execute();
  // At most one open automatic incident per component, even with two processes measuring.
  await db.schema
    .createIndex('status_incidents_open_auto')
    .on('status_incidents')
    .column('auto_component')
    .unique()
    .where(sql.ref('closed_at'), 'is', null)
    .where(sql.ref('auto_component'), 'is not', null)
    .execute();
  await db.schema.createIndex('status_incidents_closed').on('status_incidents').column('closed_at').execute();

  await db.schema
    .createTable('status_incident_updates')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('incident_id', 'text', (c) =>
      c.notNull().references('status_incidents.id').onDelete('cascade'),
    )
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('impact', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('notified_at', 'integer')
    .execute();
  await db.schema
    .createIndex('status_incident_updates_incident')
    .on('status_incident_updates')
    .columns(['incident_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('status_incident_updates_unnotified')
    .on('status_incident_updates')
    .column('seq')
    .where(sql.ref('notified_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('status_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('email', 'webhook')`))
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('destination_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'verified', 'removed')`))
    .addColumn('verify_token_hash', 'text', (c) => c.unique())
    .addColumn('verify_expires_at', 'integer')
    .addColumn('unsubscribe_nonce', 'text', (c) => c.notNull())
    .addColumn('unsubscribe_token_hash', 'text', (c) => c.unique())
    .addColumn('secret_sealed', 'text')
    .addColumn('challenge_due_at', 'integer')
    .addColumn('challenge_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('challenge_locked_until', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('verified_at', 'integer')
    .addColumn('removed_at', 'integer')
    .execute();
  // A repeated subscription finds its row: one per channel and destination.
  await db.schema
    .createIndex('status_subscriptions_destination')
    .on('status_subscriptions')
    .columns(['channel', 'destination_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('status_subscriptions_challenge')
    .on('status_subscriptions')
    .column('challenge_due_at')
    .where(sql.ref('challenge_due_at'), 'is not', null)
    .execute();

  await db.schema
    .createTable('status_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('update_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) =>
      c.notNull().references('status_subscriptions.id').onDelete('cascade'),
    )
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('pending', 'sent', 'failed', 'dropped')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('due_at', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('message_id', 'text')
    .addColumn('sent_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  // Each update reaches each subscriber once: a fan-out that runs twice inserts nothing more.
  await db.schema
    .createIndex('status_notifications_once')
    .on('status_notifications')
    .columns(['update_id', 'subscription_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('status_notifications_subscription')
    .on('status_notifications')
    .columns(['subscription_id', 'state', 'id'])
    .execute();
  await db.schema
    .createIndex('status_notifications_due')
    .on('status_notifications')
    .column('due_at')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('status_notifications').execute();
  await db.schema.dropTable('status_subscriptions').execute();
  await db.schema.dropTable('status_incident_updates').execute();
  await db.schema.dropTable('status_incidents').execute();
}
