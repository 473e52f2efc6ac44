/**
 * A sent message's html and text bodies move to their own table. In the `messages` row they were
 * rewritten with every status change (SQLite rewrites a whole row on update), so a 100 KB body
 * cost 100 KB of WAL and checkpoint writes per delivery outcome; now only the render worker reads
 * them and nothing updates them.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_bodies')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .execute();
  await sql`insert into message_bodies (message_id, html, text)
            select id, html, text from messages where html is not null or text is not null`.execute(db);
  await db.schema.alterTable('messages').dropColumn('html').execute();
  await db.schema.alterTable('messages').dropColumn('text').execute();
}
