/**
 * `message_raw`: a live message as it goes on the wire, composed and DKIM-signed once, right after
 * its acceptance (delivery/compose/prerender.ts), so that delivery only relays stored bytes, as Postfix
 * with a signing milter and KumoMTA do. `signing` names the keys the signature was made with: a
 * delivery whose domain keys are no longer those renders the message again. The bytes are kept
 * only while the message can still be sent: a trigger drops them once the message's status is
 * final (every recipient has an outcome, or the send was cancelled), whichever code wrote it.
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
  await db.schema
    .createTable('message_raw')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .addColumn('signing', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  const final = sql.join(FINAL_MESSAGE_STATUSES.map((status) => sql.lit(status)));
  await sql`create trigger message_raw_final after update of status on messages
            when new.status in (${final})
            begin delete from message_raw where message_id = new.id; end`.execute(db);
}
