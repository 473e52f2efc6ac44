/**
 * Why a received message could not be parsed (mailparser refuses more than 1,000 MIME parts or a
 * header block over 1 MB): such a message is stored with the header fields that could be read and
 * the whole message as an attachment, and this column says so. Null for every message parsed.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_messages').addColumn('parse_error', 'text').execute();
}
