/**
 * A broadcast scheduled ahead is prepared before its time (broadcasts/preparation.ts): each
 * contact's message composed and DKIM-signed, kept in `broadcast_renderings` under the message ID
 * the expansion queues it with at the send time; delivery sends it from there (render-task.ts, and
 * the PostgreSQL load). A trigger drops a rendering once its message's status is final, as
 * `message_raw_final` does for renderings made at admission. The broadcast keeps how far the
 * preparation went (`prepare_cursor`, `prepared`), for which send time (`prepared_for`: a rendering
 * is dated for it) and when it finished (`prepared_at`). The small columns come before the bytes:
 * SQLite reads a row's columns in order, through the overflow pages of a large one.
 */
import { type Kysely, sql } from 'kysely';

// As delivery/queue/message-status.ts's FINAL_MESSAGE_STATUSES were when this migration was written.
const FINAL_MESSAGE_STATUSES = [
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'cancelled',
  'rejected',
  'suppressed',
] as const;

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
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('signing', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'blob', (c) => c.notNull())
    .execute();
  await sql`create unique index broadcast_renderings_contact on broadcast_renderings (broadcast_id, contact_id)`.execute(
    db,
  );
  const final = sql.join(FINAL_MESSAGE_STATUSES.map((status) => sql.lit(status)));
  await sql`create trigger broadcast_renderings_final after update of status on messages
            when new.status in (${final}) and new.traffic = 'marketing'
            begin delete from broadcast_renderings where message_id = new.id; end`.execute(db);
}
