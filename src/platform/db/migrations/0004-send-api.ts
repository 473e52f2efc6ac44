/**
 * The send API's own rows: idempotency records (per project, kept 24 hours) and the per-message
 * tracking overrides of spec §2.1 (`track_opens`, `track_clicks`; null means the project default).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_id', 'key'])
    // Looked up only by its key: store the rows clustered on it.
    .modifyEnd(sql`without rowid`)
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
  await db.schema.alterTable('messages').addColumn('track_opens', 'integer').execute();
  await db.schema.alterTable('messages').addColumn('track_clicks', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('messages').dropColumn('track_clicks').execute();
  await db.schema.alterTable('messages').dropColumn('track_opens').execute();
}
