/**
 * Why a received message was stored without being processed: the processor gave it up as a
 * suspected poison message (runs of the process that started it died, or it kept failing), so it
 * was stored from its envelope and a bounded read of its header block, the whole message kept as an
 * attachment that is never scanned nor downloadable. Null for every message processed.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_messages').addColumn('processing_error', 'text').execute();
}
