/**
 * The order in which readers follow the event log on PostgreSQL, (tx, seq) (events/log-pg.ts):
 * an index so that a reader's page is a range scan.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index events_tx_seq on events (tx, seq)`.execute(db);
}
