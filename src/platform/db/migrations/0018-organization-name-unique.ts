/**
 * Organization names become unique, compared as `admin bootstrap` compares them (ignoring case and
 * surrounding spaces, `projects/organization-name.ts`): `organizations` gains `name_key`, the
 * compared form, with a unique index. With a lookup alone, two bootstraps at the same moment both
 * passed it (the second then failed on "database is locked"), and a database may hold duplicates
 * from before the lookup. Those must not fail the migration: the oldest of each group (by creation,
 * then ID) keeps its name, each later one is renamed "<name> (<its ID>)" and the rename is reported
 * through `warn` (the boot log, or the command's stderr), naming both organizations.
 */
import { type Kysely, sql } from 'kysely';
import { organizationNameKey } from '../../../projects/organization-name.js';

interface Organization {
  readonly id: string;
  readonly name: string;
}

export async function up(db: Kysely<unknown>, warn: (message: string) => void = () => {}): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('name_key', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  const { rows } = await sql<Organization>`select id, name from organizations
                                           order by created_at, id`.execute(db);
  const kept = new Map<string, Organization>();
  for (const org of rows) {
    let name = org.name;
    let key = organizationNameKey(name);
    const first = kept.get(key);
    if (first) {
      // The ID makes it distinct; an existing name that happens to read the same gets it twice.
      while (kept.has(key)) {
        name = `${name.trim()} (${org.id})`;
        key = organizationNameKey(name);
      }
      warn(
        `organization ${org.id} "${org.name}" was renamed "${name}": organization ${first.id} ` +
          `"${first.name}" has the same name (names are now unique, ignoring case)`,
      );
    }
    kept.set(key, { id: org.id, name });
    await sql`update organizations set name = ${name}, name_key = ${key} where id = ${org.id}`.execute(db);
  }
  await db.schema
    .createIndex('organizations_name_key')
    .on('organizations')
    .column('name_key')
    .unique()
    .execute();
}
