import test from 'ava';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { storeMigratedTo } from '../helpers/migrated-store.js';

test('0020 puts the suppressions a test message caused on the test list and keeps the rest live; an address may be on both', async (t) => {
  const { store } = await storeMigratedTo(t, '0019-message-raw');
  const { sqlite } = store;
  sqlite.pragma('foreign_keys = OFF');
  const message = sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, ?, 'transactional', 'bounced', 'a@x.test', 'a@x.test', 'x.test', null, 'S', '{}', '{}', 1, 1)`,
  );
  message.run('msg_live', 'live');
  message.run('msg_test', 'test');
  const suppression = sqlite.prepare(
    `insert into suppressions (id, project_id, email, reason, source, message_id, created_at, updated_at)
     values (?, 'prj_1', ?, ?, ?, ?, 1, 1)`,
  );
  suppression.run('sup_1', 'a@x.test', 'hard_bounce', 'bounce', 'msg_live');
  suppression.run('sup_2', 'b@x.test', 'hard_bounce', 'bounce', 'msg_test');
  suppression.run('sup_3', 'c@x.test', 'manual_block', 'api', null);
  sqlite.pragma('foreign_keys = ON');

  const applied = await migrateToLatest(store.db);
  t.true(applied.includes('0020-suppression-mode'));
  t.deepEqual(sqlite.prepare('select id, mode from suppressions order by id').all(), [
    { id: 'sup_1', mode: 'live' },
    { id: 'sup_2', mode: 'test' },
    { id: 'sup_3', mode: 'live' },
  ]);
  sqlite.pragma('foreign_keys = OFF');
  sqlite
    .prepare(
      `insert into suppressions (id, project_id, mode, email, reason, source, message_id, created_at, updated_at)
       values ('sup_4', 'prj_1', 'test', 'a@x.test', 'manual_block', 'api', null, 2, 2)`,
    )
    .run();
  t.throws(
    () =>
      sqlite
        .prepare(
          `insert into suppressions (id, project_id, mode, email, reason, source, message_id, created_at, updated_at)
           values ('sup_5', 'prj_1', 'test', 'a@x.test', 'manual_block', 'api', null, 2, 2)`,
        )
        .run(),
    { message: /UNIQUE constraint failed/ },
  );
  const plan = sqlite
    .prepare(
      "explain query plan select * from suppressions where project_id = 'prj_1' and mode = 'live' and email in ('a@x.test')",
    )
    .all() as { detail: string }[];
  t.regex(plan.map((row) => row.detail).join('\n'), /USING INDEX suppressions_project_mode_email/);
});
