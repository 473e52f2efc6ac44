/**
 * Reply idempotency records (POST /v1/inbound/emails/{id}/reply) become per project AND mode, as
 * the send path's did in 0009: a live key's reply that reused a test key's Idempotency-Key was
 * answered with the test reply, which only ever reached the sandbox. The table is rebuilt (SQLite
 * cannot change a primary key in place); each record takes its reply message's mode, and one whose
 * message is gone is dropped (its replay found nothing to return either).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_replies_0011')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('inbound_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_replies_pk', ['project_id', 'mode', 'idempotency_key'])
    .execute();
  await sql`insert into inbound_replies_0011 (project_id, mode, idempotency_key, inbound_id, message_id, created_at)
            select r.project_id, m.mode, r.idempotency_key, r.inbound_id, r.message_id, r.created_at
            from inbound_replies r join messages m on m.id = r.message_id`.execute(db);
  await db.schema.dropTable('inbound_replies').execute();
  await db.schema.alterTable('inbound_replies_0011').renameTo('inbound_replies').execute();
}
