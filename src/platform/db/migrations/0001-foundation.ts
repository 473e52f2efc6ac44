/** Organizations, users, members, projects, API keys and the audit log. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret_sealed', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('organization_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) =>
      c.notNull().check(sql`role in ('owner', 'admin', 'developer', 'analyst', 'billing')`),
    )
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('organization_members_org_user', ['organization_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('sandbox', 'active', 'suspended')`))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_organization').on('projects').column('organization_id').execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'integer')
    .addColumn('revoked_at', 'integer')
    .addColumn('last_used_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text')
    .addColumn('project_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_org_created')
    .on('audit_log')
    .columns(['organization_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'audit_log',
    'api_keys',
    'projects',
    'organization_members',
    'users',
    'organizations',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
