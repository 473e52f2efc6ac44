/**
 * Audiences, contacts with their consent history, broadcasts and the ledger of who a broadcast
 * reached (issue 25). A broadcast's messages are ordinary rows of `messages` with `traffic =
 * 'marketing'` (the channel, since migration 0002); this migration adds no column there.
 *
 * - `contact_consents` is append-only: every subscription (with the consent's source and time) and
 *   every unsubscription of a contact is one row, never updated.
 * - `broadcast_messages` holds one row per contact a broadcast queued a message for, keyed by
 *   (broadcast, contact): a contact can never be queued twice by one broadcast, whatever restarts.
 *   It commits in the same transaction as the message and the broadcast's cursor.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audiences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audiences_project').on('audiences').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('subscribed', 'unsubscribed')`))
    .addColumn('consent_source', 'text', (c) => c.notNull())
    .addColumn('consent_at', 'integer', (c) => c.notNull())
    .addColumn('unsubscribed_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('contacts_audience_email', ['audience_id', 'email'])
    .execute();
  // Paging a list by status, and a broadcast's cursor over its subscribed contacts in ID order.
  await db.schema
    .createIndex('contacts_audience_status')
    .on('contacts')
    .columns(['audience_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('contact_consents')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('subscribed', 'unsubscribed')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('broadcast_id', 'text')
    .addColumn('detail', 'text')
    .addColumn('recorded_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('contact_consents_contact')
    .on('contact_consents')
    .columns(['contact_id', 'id'])
    .execute();
  await db.schema
    .createIndex('contact_consents_broadcast')
    .on('contact_consents')
    .column('broadcast_id')
    .where(sql.ref('broadcast_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('broadcasts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('audience_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('subject', 'text')
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('template', 'text')
    .addColumn('template_id', 'text')
    .addColumn('template_version', 'integer')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('draft', 'scheduled', 'sending', 'sent', 'cancelled', 'failed')`),
    )
    .addColumn('send_at', 'integer')
    .addColumn('started_at', 'integer')
    .addColumn('finished_at', 'integer')
    .addColumn('cancelled_at', 'integer')
    /** The last contact ID the expansion has passed (ID order); null before the first batch. */
    .addColumn('cursor', 'text')
    .addColumn('recipients', 'integer')
    .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('suppressed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('broadcasts_project')
    .on('broadcasts')
    .columns(['project_id', 'mode', 'id'])
    .execute();
  await db.schema
    .createIndex('broadcasts_runnable')
    .on('broadcasts')
    .columns(['status', 'send_at'])
    .where(sql<boolean>`status in ('scheduled', 'sending')`)
    .execute();

  await db.schema
    .createTable('broadcast_messages')
    .addColumn('broadcast_id', 'text', (c) => c.notNull().references('broadcasts.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('broadcast_messages_pk', ['broadcast_id', 'contact_id'])
    .modifyEnd(sql`without rowid`)
    .execute();
  await db.schema
    .createIndex('broadcast_messages_message')
    .on('broadcast_messages')
    .column('message_id')
    .execute();
}
