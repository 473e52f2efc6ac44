import test from 'ava';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createProjectStore } from '../../src/projects/store.js';
import { migrationsFrom, storeMigratedTo } from '../helpers/migrated-store.js';

test('0018 makes organization names unique ignoring case, renaming the later of existing duplicates with a warning', async (t) => {
  const { store } = await storeMigratedTo(t, '0017-webhook-attempts-by-mode');
  const { sqlite } = store;
  const insert = sqlite.prepare('insert into organizations (id, name, created_at) values (?, ?, ?)');
  // The oldest keeps its name, whatever its ID; "later" is by creation.
  insert.run('org_1', 'acme', 30);
  insert.run('org_2', 'Acme', 10);
  insert.run('org_3', ' ACME ', 20);
  insert.run('org_4', 'Ärzte Nord', 10);
  insert.run('org_5', 'ärzte nord', 20);
  insert.run('org_6', 'Other', 40);

  const warnings: string[] = [];
  const applied = await migrateToLatest(store.db, {
    onWarning: (name, message) => warnings.push(`${name}: ${message}`),
  });
  t.deepEqual(applied, migrationsFrom('0018-organization-name-unique'));
  t.deepEqual(sqlite.prepare('select id, name from organizations order by id').all(), [
    { id: 'org_1', name: 'acme (org_1)' },
    { id: 'org_2', name: 'Acme' },
    { id: 'org_3', name: 'ACME (org_3)' },
    { id: 'org_4', name: 'Ärzte Nord' },
    { id: 'org_5', name: 'ärzte nord (org_5)' },
    { id: 'org_6', name: 'Other' },
  ]);
  t.deepEqual(warnings, [
    '0018-organization-name-unique: organization org_3 " ACME " was renamed "ACME (org_3)": organization org_2 "Acme" has the same name (names are now unique, ignoring case)',
    '0018-organization-name-unique: organization org_5 "ärzte nord" was renamed "ärzte nord (org_5)": organization org_4 "Ärzte Nord" has the same name (names are now unique, ignoring case)',
    '0018-organization-name-unique: organization org_1 "acme" was renamed "acme (org_1)": organization org_2 "Acme" has the same name (names are now unique, ignoring case)',
  ]);
  // The index refuses a new duplicate, in any case (non-ASCII letters too) and with spaces around.
  const projects = createProjectStore(store.db);
  for (const name of ['ACME', ' acme ', 'ÄRZTE NORD'])
    await t.throwsAsync(projects.insertOrganization({ id: 'org_7', name, created_at: 50 }), {
      code: 'SQLITE_CONSTRAINT_UNIQUE',
    });
  await projects.insertOrganization({ id: 'org_8', name: 'Acme Two', created_at: 50 });
});
