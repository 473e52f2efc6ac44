/**
 * Webhook endpoints gain `mode`, the mode of the key that created them: an endpoint receives the
 * events of its mode's messages only, and a key sees only its mode's endpoints. An existing
 * endpoint takes the mode of the key its `webhook.create` audit record names (endpoints are
 * created with keys only, and the audit log is never purged); one without such a record is live.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live').check(sql`mode in ('live', 'test')`))
    .execute();
  await sql`update webhook_endpoints set mode = 'test'
            where id in (select a.target from audit_log a join api_keys k on a.actor = 'key:' || k.id
                         where a.action = 'webhook.create' and k.mode = 'test')`.execute(db);
}
