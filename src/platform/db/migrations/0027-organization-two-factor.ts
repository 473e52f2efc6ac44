/**
 * An organization may require two-factor authentication of its owners and admins before they use
 * administrative actions (ASVS 4.3.1): the time an owner turned the requirement on, null when off.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('two_factor_required_at', 'integer').execute();
}
