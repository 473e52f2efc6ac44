/**
 * Recipients gain the status `cancelled`: cancelling a scheduled send now sets it on every
 * recipient, in the cancel's transaction. Before, the recipients of a cancelled send stayed
 * `queued` for good. The column has no CHECK constraint to widen; this gives the recipients of
 * sends cancelled earlier the status they would get now (they are all `queued`: a scheduled send
 * is cancelled before anything of it is tried), with the time of their message's cancel.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update message_recipients
            set status = 'cancelled',
                updated_at = (select m.updated_at from messages m where m.id = message_recipients.message_id)
            where status = 'queued'
              and message_id in (select id from messages where status = 'cancelled')`.execute(db);
}
