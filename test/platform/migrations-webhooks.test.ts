import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Migrator } from 'kysely/migration';
import { openStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';

test('0016 gives each webhook endpoint the mode of the key its creation was audited with, else live', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(dir);
  t.teardown(() => store.close());
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  t.is((await migrator.migrateTo('0015-cancelled-recipients')).error, undefined);
  const { sqlite } = store;
  sqlite.exec(`insert into organizations (id, name, created_at) values ('org_1', 'o', 0);
    insert into projects (id, organization_id, name, status, created_at, updated_at)
    values ('prj_1', 'org_1', 'p', 'active', 0, 0)`);
  const key = sqlite.prepare(
    `insert into api_keys (id, project_id, name, mode, key_hash, key_hint, scopes, created_at)
     values (?, 'prj_1', ?, ?, ?, 'x', '["full_access"]', 0)`,
  );
  key.run('key_test', 'sandbox', 'test', 'hash-test');
  key.run('key_live', 'production', 'live', 'hash-live');
  const endpoint = sqlite.prepare(
    `insert into webhook_endpoints (id, project_id, url, description, events, status, secret_sealed, created_at, updated_at)
     values (?, 'prj_1', 'https://hooks.example.com/in', null, '["*"]', 'enabled', 'sealed', 0, 0)`,
  );
  const audited = sqlite.prepare(
    `insert into audit_log (id, organization_id, project_id, actor, action, target, created_at)
     values (?, 'org_1', 'prj_1', ?, ?, ?, 0)`,
  );
  endpoint.run('wh_by_test_key');
  audited.run('aud_1', 'key:key_test', 'webhook.create', 'wh_by_test_key');
  // A test key that only updated it did not create it.
  audited.run('aud_2', 'key:key_test', 'webhook.update', 'wh_by_live_key');
  endpoint.run('wh_by_live_key');
  audited.run('aud_3', 'key:key_live', 'webhook.create', 'wh_by_live_key');
  endpoint.run('wh_unrecorded');

  t.deepEqual(await migrateToLatest(store.db), [
    '0016-webhook-endpoint-mode',
    '0017-organization-name-unique',
  ]);
  t.deepEqual(sqlite.prepare('select id, mode from webhook_endpoints order by id').all(), [
    { id: 'wh_by_live_key', mode: 'live' },
    { id: 'wh_by_test_key', mode: 'test' },
    { id: 'wh_unrecorded', mode: 'live' },
  ]);
  // A mode other than live or test is refused.
  t.throws(() =>
    sqlite.prepare("update webhook_endpoints set mode = 'staging' where id = 'wh_unrecorded'").run(),
  );
});
