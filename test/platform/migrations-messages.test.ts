import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Migrator } from 'kysely/migration';
import { openStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';

function storeAt(t: import('ava').ExecutionContext) {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(dir);
  t.teardown(() => store.close());
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  return { store, migrator };
}

const planOf = (sqlite: ReturnType<typeof openStore>['sqlite'], query: string) =>
  (sqlite.prepare(`explain query plan ${query}`).all() as { detail: string }[])
    .map((r) => r.detail)
    .join('; ');

test('0014 indexes messages by project, mode and ID: a key’s list and the quota’s count read one mode’s range', async (t) => {
  const { store, migrator } = storeAt(t);
  t.is((await migrator.migrateTo('0013-inbound-parse-error')).error, undefined);
  t.deepEqual(await migrateToLatest(store.db), ['0014-messages-mode-index']);
  const indexes = (
    store.sqlite.prepare("select name from pragma_index_list('messages') where origin = 'c'").all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .sort();
  t.deepEqual(indexes, ['messages_project_mode', 'messages_scheduled']);
  t.regex(
    planOf(
      store.sqlite,
      "select id from messages where project_id = 'p' and mode = 'test' and id < 'msg_9' order by id desc limit 51",
    ),
    /SEARCH messages USING (COVERING )?INDEX messages_project_mode \(project_id=\? AND mode=\? AND id<\?\)/,
  );
  t.regex(
    planOf(
      store.sqlite,
      "select count(*) from messages where project_id = 'p' and mode = 'live' and id >= 'msg_0'",
    ),
    /SEARCH messages USING COVERING INDEX messages_project_mode \(project_id=\? AND mode=\? AND id>\?\)/,
  );
});
