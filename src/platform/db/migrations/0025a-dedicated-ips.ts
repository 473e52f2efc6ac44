/**
 * Dedicated IPs: a project's requests for one (reviewed by an operator), the assignments of
 * addresses of `delivery.source_ips` to projects with their warm-up plan, and what each assigned
 * address sent per UTC day and provider lane (the plan's daily limits are checked against it).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dedicated_ip_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('monthly_volume', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'approved', 'declined')`))
    .addColumn('review_note', 'text')
    .addColumn('reviewed_by', 'text')
    .addColumn('reviewed_at', 'integer')
    .addColumn('ip', 'text')
    .addColumn('plan', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dedicated_ip_requests_project')
    .on('dedicated_ip_requests')
    .columns(['project_id', 'id'])
    .execute();
  // At most one pending request per project.
  await sql`create unique index dedicated_ip_requests_pending on dedicated_ip_requests (project_id)
            where status = 'pending'`.execute(db);

  await db.schema
    .createTable('dedicated_ip_assignments')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull().unique())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('plan_name', 'text', (c) => c.notNull())
    .addColumn('daily_limits', 'text', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('dedicated_ip_usage')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('lane', 'text', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('dedicated_ip_usage_pk', ['ip', 'day', 'lane'])
    .execute();
}
