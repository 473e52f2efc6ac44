/** SQLite's 0029-broadcast-preparation: renderings of a broadcast prepared before its send time. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table broadcasts add column prepare_cursor text,
            add column prepared bigint default 0 not null,
            add column prepared_for bigint, add column prepared_at bigint`.execute(db);
  await sql`create table broadcast_renderings (
              message_id text primary key,
              broadcast_id text not null references broadcasts (id) on delete cascade,
              contact_id text not null, send_at bigint not null, created_at bigint not null,
              signing text not null, size bigint not null, bytes bytea not null)`.execute(db);
  await sql`create unique index broadcast_renderings_contact on broadcast_renderings (broadcast_id, contact_id)`.execute(
    db,
  );
  await sql`create function broadcast_renderings_final() returns trigger language plpgsql as $$
            begin
              delete from broadcast_renderings where message_id = new.id;
              return null;
            end $$`.execute(db);
  await sql`create trigger broadcast_renderings_final after update of status on messages for each row
            when (new.status in ('delivered', 'partially_delivered', 'bounced', 'failed', 'cancelled',
                                 'rejected', 'suppressed') and new.traffic = 'marketing')
            execute function broadcast_renderings_final()`.execute(db);
}
