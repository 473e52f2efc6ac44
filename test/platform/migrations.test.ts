import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Migrator } from 'kysely/migration';
import { openStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';

test('0008 moves the bodies of existing messages into message_bodies and drops the old columns', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(dir);
  t.teardown(() => store.close());
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  const before = await migrator.migrateTo('0007-inbound');
  t.is(before.error, undefined);

  // Rows as 0007 knew them; the project they belong to is beside the point here.
  store.sqlite.pragma('foreign_keys = OFF');
  const insert = store.sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, html, text, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, 'live', 'transactional', 'delivered', 'a@x.test', 'a@x.test', 'x.test',
       null, 'Hi', ?, ?, '{}', '{}', 1, 1)`,
  );
  insert.run('msg_1', '<p>Grüße</p>', 'Grüße');
  insert.run('msg_2', null, 'text only');
  store.sqlite.pragma('foreign_keys = ON');

  t.deepEqual(await migrateToLatest(store.db), ['0008-message-bodies', '0009-webhook-failure-streak']);
  const bodies = store.sqlite
    .prepare('select message_id, html, text from message_bodies order by message_id')
    .all();
  t.deepEqual(bodies, [
    { message_id: 'msg_1', html: '<p>Grüße</p>', text: 'Grüße' },
    { message_id: 'msg_2', html: null, text: 'text only' },
  ]);
  const columns = store.sqlite.prepare('select name from pragma_table_info(?)').all('messages') as {
    name: string;
  }[];
  t.false(columns.some((c) => c.name === 'html' || c.name === 'text'));

  // A message's body goes with it.
  store.sqlite.prepare('delete from messages where id = ?').run('msg_1');
  t.is((store.sqlite.prepare('select count(*) as n from message_bodies').get() as { n: number }).n, 1);
});
