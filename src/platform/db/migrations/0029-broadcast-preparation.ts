/**
 * A broadcast scheduled ahead is prepared before its time (broadcasts/preparation.ts): each
 * contact's message composed and DKIM-signed, kept in `broadcast_renderings` until the expansion
 * queues the message at the send time and moves its rendering into `message_raw`. The broadcast
 * keeps how far the preparation went (`prepare_cursor`, `prepared`), for which send time
 * (`prepared_for`: a rendering is dated for it) and when it finished (`prepared_at`).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('broadcasts').addColumn('prepare_cursor', 'text').execute();
  await db.schema
    .alterTable('broadcasts')
    .addColumn('prepared', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('broadcasts').addColumn('prepared_for', 'integer').execute();
  await db.schema.alterTable('broadcasts').addColumn('prepared_at', 'integer').execute();
  await db.schema
    .createTable('broadcast_renderings')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('broadcast_id', 'text', (c) => c.notNull().references('broadcasts.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('send_at', 'integer', (c) => c.notNull())
    .addColumn('signing', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await sql`create unique index broadcast_renderings_contact on broadcast_renderings (broadcast_id, contact_id)`.execute(
    db,
  );
}
