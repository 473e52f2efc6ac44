import test from 'ava';
import type { Store } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrationsFrom, storeMigratedTo } from '../helpers/migrated-store.js';

const planOf = (sqlite: Store['sqlite'], query: string) =>
  (sqlite.prepare(`explain query plan ${query}`).all() as { detail: string }[])
    .map((r) => r.detail)
    .join('; ');

test('0014 indexes messages by project, mode and ID: a key’s list and the quota’s count read one mode’s range', async (t) => {
  const { store, migrator } = await storeMigratedTo(t, '0013-inbound-parse-error');
  const migrated = await migrator.migrateTo('0014-messages-mode-index');
  t.is(migrated.error, undefined);
  t.deepEqual(
    migrated.results?.map((r) => r.migrationName),
    ['0014-messages-mode-index'],
  );
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

test('0015 gives the recipients of sends cancelled before it the status cancelled, with the time of the cancel', async (t) => {
  const { store } = await storeMigratedTo(t, '0014-messages-mode-index');
  const { sqlite } = store;
  sqlite.pragma('foreign_keys = OFF');
  const message = sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, 'live', 'transactional', ?, 'a@x.test', 'a@x.test', 'x.test', null, 'Hi', '{}', '{}', 1, ?)`,
  );
  message.run('msg_cancelled', 'cancelled', 50);
  message.run('msg_queued', 'queued', 60);
  message.run('msg_sending', 'sending', 70);
  const recipient = sqlite.prepare(
    `insert into message_recipients (id, message_id, project_id, kind, email, display, domain, status, attempts, updated_at)
     values (?, ?, 'prj_1', 'to', ?, ?, 'x.test', ?, 0, 1)`,
  );
  recipient.run('rcp_1', 'msg_cancelled', 'a@x.test', 'a@x.test', 'queued');
  recipient.run('rcp_2', 'msg_cancelled', 'b@x.test', 'b@x.test', 'queued');
  recipient.run('rcp_3', 'msg_queued', 'c@x.test', 'c@x.test', 'queued');
  recipient.run('rcp_4', 'msg_sending', 'd@x.test', 'd@x.test', 'delivered');
  recipient.run('rcp_5', 'msg_sending', 'e@x.test', 'e@x.test', 'queued');
  sqlite.pragma('foreign_keys = ON');

  t.deepEqual(await migrateToLatest(store.db), migrationsFrom('0015-cancelled-recipients'));
  t.deepEqual(sqlite.prepare('select id, status, updated_at from message_recipients order by id').all(), [
    { id: 'rcp_1', status: 'cancelled', updated_at: 50 },
    { id: 'rcp_2', status: 'cancelled', updated_at: 50 },
    { id: 'rcp_3', status: 'queued', updated_at: 1 },
    { id: 'rcp_4', status: 'delivered', updated_at: 1 },
    { id: 'rcp_5', status: 'queued', updated_at: 1 },
  ]);
});
