/**
 * Agent sends held for a person: one approval per message an OAuth client sent while its project
 * asks for approval (pending → approved, rejected or expired), and each project's policy (approval
 * on unless turned off; clients it trusts to send without one).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('send_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) =>
      c.notNull().unique().references('messages.id').onDelete('cascade'),
    )
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('user_email', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'rejected', 'expired')`),
    )
    .addColumn('note', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'integer')
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('send_approvals_project')
    .on('send_approvals')
    .columns(['project_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('send_approvals_expiry')
    .on('send_approvals')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('send_approval_policies')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('require_approval', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('trusted_clients', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('send_approval_policies').execute();
  await db.schema.dropTable('send_approvals').execute();
}
