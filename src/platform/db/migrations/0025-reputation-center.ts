/**
 * `reputation_hourly`: the reputation center's projection of the event log, counts of delivery
 * outcomes per project, sending domain or provider lane, and UTC hour (live traffic only), with the
 * last reputation or rate block a provider answered. Thirty days of hours are kept.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reputation_hourly')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hard_bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deferred', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complained', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_block_at', 'integer')
    .addColumn('last_block_category', 'text')
    .addColumn('last_block_response', 'text')
    .addColumn('last_block_mx', 'text')
    .addPrimaryKeyConstraint('reputation_hourly_pk', ['project_id', 'kind', 'name', 'hour'])
    .execute();
  // Retention deletes by hour across projects.
  await db.schema.createIndex('reputation_hourly_hour').on('reputation_hourly').column('hour').execute();
}
