/** SQLite's 0027-organization-two-factor: when an owner made two-factor required of owners and admins. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('two_factor_required_at', 'bigint').execute();
}
