/**
 * Mailbox-provider connections of a project (Google Postmaster Tools, Microsoft SNDS): the
 * credential sealed with the master key, the state of the last sync, and the data fetched, one row
 * per subject (a domain or an IP), kind and day.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reputation_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) =>
      c.notNull().check(sql`provider in ('provider_a_postmaster', 'provider_b_snds')`),
    )
    .addColumn('credential_sealed', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('last_synced_at', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reputation_connections_project')
    .on('reputation_connections')
    .columns(['project_id', 'id'])
    .execute();

  await db.schema
    .createTable('reputation_provider_data')
    .addColumn('connection_id', 'text', (c) =>
      c.notNull().references('reputation_connections.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('reputation_provider_data_pk', ['connection_id', 'kind', 'subject', 'day'])
    .execute();
}
