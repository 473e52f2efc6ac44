/**
 * Suppressions gain `mode` (DESIGN.md §4a): a suppression made in test mode (a bounce or complaint
 * of a `ph_test_` send, or an address added with a test key) applies to test sends only, and one
 * made in live mode to live sends only. The unique address index becomes (project_id, mode, email).
 * An existing suppression caused by a test message becomes a test one; every other one stays live.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('suppressions')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live').check(sql`mode in ('live', 'test')`))
    .execute();
  await sql`update suppressions set mode = 'test'
            where message_id in (select id from messages where mode = 'test')`.execute(db);
  await db.schema.dropIndex('suppressions_project_email').execute();
  await db.schema
    .createIndex('suppressions_project_mode_email')
    .unique()
    .on('suppressions')
    .columns(['project_id', 'mode', 'email'])
    .execute();
}
