/**
 * People signing in: dashboard sessions (token stored as SHA-256), login codes (one live code per
 * user, HMAC of the code, tries counted), TOTP enrolment state and single-use recovery codes on the
 * user, and the audit log's "how": what kind of actor acted, how it authenticated, from which
 * address and client. Rows written before keep their actor text; its kind is derived from it.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('totp_pending_sealed', 'text').execute();
  await db.schema.alterTable('users').addColumn('totp_last_step', 'integer').execute();
  await db.schema.alterTable('users').addColumn('totp_enabled_at', 'integer').execute();
  await db.schema.alterTable('users').addColumn('password_updated_at', 'integer').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('auth_method', 'text', (c) =>
      c.notNull().check(sql`auth_method in ('email_code', 'password')`),
    )
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema
    .createIndex('sessions_user')
    .on('sessions')
    .columns(['user_id', 'organization_id'])
    .execute();

  await db.schema
    .createTable('login_codes')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();

  await db.schema
    .alterTable('audit_log')
    .addColumn('actor_kind', 'text', (c) => c.notNull().defaultTo('system'))
    .execute();
  await db.schema.alterTable('audit_log').addColumn('auth_method', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('ip_address', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('user_agent', 'text').execute();
  await sql`update audit_log set actor_kind = case
              when actor = 'cli' or actor like 'cli:%' then 'cli'
              when actor like 'key:%' then 'key'
              else 'system' end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['recovery_codes', 'login_codes', 'sessions'])
    await db.schema.dropTable(table).execute();
  for (const column of ['actor_kind', 'auth_method', 'ip_address', 'user_agent'])
    await db.schema.alterTable('audit_log').dropColumn(column).execute();
  for (const column of ['totp_pending_sealed', 'totp_last_step', 'totp_enabled_at', 'password_updated_at'])
    await db.schema.alterTable('users').dropColumn(column).execute();
}
