/**
 * The operator's system organization: `organizations.kind` is `customer` for every organization an
 * operator or a customer makes and `system` for the one that owns Posthorn's own mail (login codes,
 * invitations, status notices; src/system-mail). A partial unique index keeps it to one, so two
 * processes booting at once cannot make two.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('kind', 'text', (c) =>
      c.notNull().defaultTo('customer').check(sql`kind in ('customer', 'system')`),
    )
    .execute();
  await sql`create unique index organizations_one_system on organizations (kind)
            where kind = 'system'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index organizations_one_system`.execute(db);
  await db.schema.alterTable('organizations').dropColumn('kind').execute();
}
