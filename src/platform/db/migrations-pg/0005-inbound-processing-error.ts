/** SQLite's 0028-inbound-processing-error: why a received message was stored without processing. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_messages').addColumn('processing_error', 'text').execute();
}
