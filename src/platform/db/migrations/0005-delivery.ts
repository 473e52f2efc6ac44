/**
 * The delivery engine's own rows: the per-lane claim index on the queue, the MTA-STS policy cache
 * (RFC 8461 §3.3: a policy is kept for its max_age and outlives a failed refresh), the soft-bounce
 * counters behind `repeated_soft_bounce`, and the attempt log (one row per SMTP transaction tried,
 * for operators and the message detail).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each lane claims its own due jobs, and the router claims those with no lane yet (lane is
  // null); both are an index range scan, so a backlog in one lane never slows another's claim.
  await db.schema
    .createIndex('delivery_jobs_lane_due')
    .on('delivery_jobs')
    .columns(['traffic', 'lane', 'due_at'])
    .where(sql.ref('state'), '=', 'queued')
    .execute();

  await db.schema
    .createTable('mta_sts_policies')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    /** The id= of the _mta-sts TXT record the policy was fetched under. */
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('enforce', 'testing', 'none')`))
    .addColumn('mx', 'text', (c) => c.notNull())
    .addColumn('max_age', 'integer', (c) => c.notNull())
    .addColumn('fetched_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('delivery_soft_bounces')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('last_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_soft_bounces_pk', ['project_id', 'email'])
    .modifyEnd(sql`without rowid`)
    .execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('lane', 'text')
    .addColumn('mx_host', 'text')
    .addColumn('tls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('smtp_code', 'integer')
    .addColumn('smtp_reply', 'text')
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('delivery_attempts_message')
    .on('delivery_attempts')
    .column('message_id')
    .execute();
  await db.schema
    .createIndex('delivery_attempts_started')
    .on('delivery_attempts')
    .column('started_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('delivery_attempts').execute();
  await db.schema.dropTable('delivery_soft_bounces').execute();
  await db.schema.dropTable('mta_sts_policies').execute();
  await db.schema.dropIndex('delivery_jobs_lane_due').execute();
}
