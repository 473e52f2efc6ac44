/**
 * When an endpoint's latest failed attempt finished, so a failing streak counts only while the
 * failures are continuous (webhooks/failing-streak.ts): one failure days after an old outage starts
 * a new streak instead of disabling the endpoint at once.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('last_failed_at', 'integer').execute();
}
