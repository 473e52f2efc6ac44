/**
 * The dashboard's message history index (src/dashboard/history/): one row per message with the
 * keys the history sorts and filters by (created, status, subject, sender, first recipient), the
 * number of messages per project, mode and status, and a trigram full-text index (FTS5) over the
 * message ID, sender, subject and every recipient for substring search. The indexer fills them
 * from `messages` in batches behind a rowid cursor, so the send path writes nothing more; a
 * trigger keeps status and counts in step when a message's status changes after it was indexed.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table message_history (
              message_rowid integer primary key,
              id text not null,
              project_id text not null,
              mode text not null,
              status text not null,
              from_email text not null,
              subject text not null,
              recipient text not null)`.execute(db);
  for (const [name, column] of [
    ['created', 'id'],
    ['subject', 'subject, id'],
    ['sender', 'from_email, id'],
    ['recipient', 'recipient, id'],
    ['status', 'status, id'],
  ] as const) {
    await sql
      .raw(`create index message_history_${name} on message_history (project_id, mode, ${column})`)
      .execute(db);
  }
  await sql`create table message_history_counts (
              project_id text not null,
              mode text not null,
              status text not null,
              n integer not null,
              primary key (project_id, mode, status)) without rowid`.execute(db);
  await sql`create virtual table message_search using fts5(
              body, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
  // Only messages already indexed: the indexer counts the others with their status of the moment.
  await sql`create trigger message_history_status after update of status on messages
            when new.status <> old.status
              and exists (select 1 from message_history where message_rowid = new.rowid)
            begin
              update message_history set status = new.status where message_rowid = new.rowid;
              insert or ignore into message_history_counts values (new.project_id, new.mode, new.status, 0);
              update message_history_counts set n = n + 1
                where project_id = new.project_id and mode = new.mode and status = new.status;
              update message_history_counts set n = n - 1
                where project_id = old.project_id and mode = old.mode and status = old.status;
            end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger message_history_status`.execute(db);
  await sql`drop table message_search`.execute(db);
  await sql`drop table message_history_counts`.execute(db);
  await sql`drop table message_history`.execute(db);
}
