/**
 * Sending domains with their DKIM keys, the suppression list, and versioned templates. The
 * suppression list's unique (project_id, email) index is what makes the send path's "is any of
 * these addresses suppressed?" one indexed query.
 */
import { type Kysely, sql } from 'kysely';

const SUPPRESSION_REASONS = [
  'hard_bounce',
  'spam_complaint',
  'unsubscribe',
  'manual_block',
  'repeated_soft_bounce',
  'abuse_decision',
  'invalid_address',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'verified', 'failed')`))
    .addColumn('checks', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('verified_at', 'integer')
    .addColumn('last_checked_at', 'integer')
    .execute();
  await db.schema
    .createIndex('domains_project_name')
    .unique()
    .on('domains')
    .columns(['project_id', 'name'])
    .execute();

  await db.schema
    .createTable('domain_dkim_keys')
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('algorithm', 'text', (c) =>
      c.notNull().check(sql`algorithm in ('rsa-sha256', 'ed25519-sha256')`),
    )
    .addColumn('selector', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('domain_dkim_keys_pk', ['domain_id', 'algorithm'])
    .execute();

  await db.schema
    .createTable('suppressions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) =>
      c.notNull().check(sql`reason in (${sql.join(SUPPRESSION_REASONS.map((r) => sql.lit(r)))})`),
    )
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('suppressions_project_email')
    .unique()
    .on('suppressions')
    .columns(['project_id', 'email'])
    .execute();
  await db.schema
    .createIndex('suppressions_project_id')
    .on('suppressions')
    .columns(['project_id', 'id'])
    .execute();

  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('slug', 'text')
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .addColumn('published_version', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  // SQLite lets several rows hold a NULL slug under a unique index: templates without a slug.
  await db.schema
    .createIndex('templates_project_slug')
    .unique()
    .on('templates')
    .columns(['project_id', 'slug'])
    .execute();
  await db.schema.createIndex('templates_project_id').on('templates').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('template_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('text_body', 'text')
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'integer')
    .execute();
  await db.schema
    .createIndex('template_versions_template_version')
    .unique()
    .on('template_versions')
    .columns(['template_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['template_versions', 'templates', 'suppressions', 'domain_dkim_keys', 'domains']) {
    await db.schema.dropTable(table).execute();
  }
}
