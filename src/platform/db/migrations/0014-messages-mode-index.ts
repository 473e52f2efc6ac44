/**
 * A key reads, lists and counts only the messages of its own mode (a `ph_test_` key the test ones,
 * a `ph_live_` key the live ones), so the per-project index of messages gains the mode between
 * the project and the ID: a test key's list (newest first) no longer walks every live message of
 * the project to find its few, and the daily quota's count of live messages stays a range read of
 * the index alone. It replaces the (project_id, id) index rather than adding one, so an accepted
 * send still writes one index entry for it; every query that used the old one names the mode now.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('messages_project_mode')
    .on('messages')
    .columns(['project_id', 'mode', 'id'])
    .execute();
  await db.schema.dropIndex('messages_project_id').execute();
}
