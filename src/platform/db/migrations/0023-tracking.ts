/**
 * Open and click tracking (src/tracking): each project's settings, and the hits recorded from
 * tracking URLs. A project without a settings row uses the `[tracking]` defaults of the config.
 * A hit keeps what classification decided and no more: the client address truncated (IPv4 /24,
 * IPv6 /48) and the user agent as its class only; retention deletes hits older than the project's
 * `retention_days` (by `at`, hence its index).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tracking_settings')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('opens_enabled', 'integer', (c) => c.notNull())
    .addColumn('clicks_enabled', 'integer', (c) => c.notNull())
    .addColumn('retention_days', 'integer', (c) => c.notNull().check(sql`retention_days between 1 and 365`))
    .addColumn('custom_domain', 'text')
    .addColumn('dns_status', 'text', (c) =>
      c.notNull().defaultTo('none').check(sql`dns_status in ('none', 'pending', 'verified', 'failed')`),
    )
    .addColumn('dns_reason', 'text')
    .addColumn('dns_checked_at', 'integer')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tracking_hits')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('open', 'click')`))
    .addColumn('link_url', 'text')
    .addColumn('link_index', 'integer')
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('ip_prefix', 'text')
    .addColumn('agent_class', 'text', (c) => c.notNull())
    .addColumn('machine', 'integer', (c) => c.notNull())
    .addColumn('machine_reason', 'text')
    .addColumn('proxy', 'text')
    .addColumn('event_id', 'text')
    .execute();
  await db.schema.createIndex('tracking_hits_at').on('tracking_hits').column('at').execute();
  await db.schema
    .createIndex('tracking_hits_message')
    .on('tracking_hits')
    .columns(['message_id', 'at'])
    .execute();
}
