/**
 * Idempotency records become per project AND mode: a `ph_test_` key and a `ph_live_` key of one
 * project no longer share keys (a live send that reused a test send's key was answered with the
 * test message, which only ever reaches the sandbox, and the live mail was never sent). SQLite
 * cannot change a primary key in place, so the table is rebuilt; each existing record takes the
 * mode of the message it points at (a record whose message is gone could never be replayed, since
 * the lookup joins the message, and is dropped).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys_0009')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_id', 'mode', 'key'])
    // Looked up only by its key: store the rows clustered on it.
    .modifyEnd(sql`without rowid`)
    .execute();
  await sql`insert into idempotency_keys_0009 (project_id, mode, key, message_id, created_at)
            select k.project_id, m.mode, k.key, k.message_id, k.created_at
            from idempotency_keys k join messages m on m.id = k.message_id`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('idempotency_keys_0009').renameTo('idempotency_keys').execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
}
