import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { migrationsFrom, storeMigratedTo } from '../helpers/migrated-store.js';

test('0008 moves the bodies of existing messages into message_bodies and drops the old columns', async (t) => {
  const { store, migrator } = await storeMigratedTo(t, '0007-inbound');

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

  const after = await migrator.migrateTo('0008-message-bodies');
  t.is(after.error, undefined);
  t.deepEqual(
    after.results?.map((r) => r.migrationName),
    ['0008-message-bodies'],
  );
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

test("0009 keys idempotency records by mode, each existing record taking its message's mode", async (t) => {
  const { store, migrator } = await storeMigratedTo(t, '0008-message-bodies');

  store.sqlite.pragma('foreign_keys = OFF');
  const message = store.sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, ?, 'transactional', 'queued', 'a@x.test', 'a@x.test', 'x.test', null, 'Hi', '{}', '{}', 1, 1)`,
  );
  message.run('msg_live', 'live');
  message.run('msg_test', 'test');
  store.sqlite.pragma('foreign_keys = ON');
  const record = store.sqlite.prepare(
    'insert into idempotency_keys (project_id, key, message_id, created_at) values (?, ?, ?, ?)',
  );
  record.run('prj_1', 'a', 'msg_live', 5);
  record.run('prj_1', 'b', 'msg_test', 6);
  record.run('prj_1', 'c', 'msg_gone', 7);

  const after = await migrator.migrateTo('0009-idempotency-mode');
  t.is(after.error, undefined);
  t.deepEqual(
    after.results?.map((r) => r.migrationName),
    ['0009-idempotency-mode'],
  );
  t.deepEqual(
    store.sqlite
      .prepare('select project_id, mode, key, message_id, created_at from idempotency_keys order by key')
      .all(),
    [
      { project_id: 'prj_1', mode: 'live', key: 'a', message_id: 'msg_live', created_at: 5 },
      { project_id: 'prj_1', mode: 'test', key: 'b', message_id: 'msg_test', created_at: 6 },
    ],
  );
  // One key may now exist once per mode, and the lookups stay on the primary key and index.
  store.sqlite
    .prepare(
      'insert into idempotency_keys (project_id, mode, key, message_id, created_at) values (?, ?, ?, ?, ?)',
    )
    .run('prj_1', 'test', 'a', 'msg_test', 8);
  const plan = (query: string) =>
    (store.sqlite.prepare(`explain query plan ${query}`).all() as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  t.regex(
    plan(
      "select message_id from idempotency_keys where project_id = 'prj_1' and mode = 'live' and key = 'a'",
    ),
    /SEARCH idempotency_keys USING PRIMARY KEY \(project_id=\? AND mode=\? AND key=\?\)/,
  );
  t.regex(plan('delete from idempotency_keys where created_at < 10'), /USING INDEX idempotency_keys_created/);
});

test('migrating to the latest applies what is left in order: 0010 adds the webhook failure streak, 0011 keys replies by mode, 0012 keys analytics by mode, 0013 adds parse_error, 0014 indexes messages by mode, 0015 cancels the recipients of cancelled sends, 0016 gives webhook endpoints a mode, 0017 drops the pending attempts that mode routes elsewhere, 0018 makes organization names unique, 0019 adds the store of messages signed at admission, 0020 gives suppressions a mode, 0026 adds the status area', async (t) => {
  const { store } = await storeMigratedTo(t, '0009-idempotency-mode');
  store.sqlite.pragma('foreign_keys = OFF');
  store.sqlite
    .prepare(
      `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
         reply_to, subject, headers, tags, created_at, updated_at)
       values ('msg_t', 'prj_1', null, 'test', 'transactional', 'queued', 'a@x.test', 'a@x.test', 'x.test', null, 'Re', '{}', '{}', 1, 1)`,
    )
    .run();
  store.sqlite.pragma('foreign_keys = ON');
  const reply = store.sqlite.prepare(
    'insert into inbound_replies (project_id, idempotency_key, inbound_id, message_id, created_at) values (?, ?, ?, ?, ?)',
  );
  reply.run('prj_1', 'r1', 'inb_1', 'msg_t', 5);
  reply.run('prj_1', 'r2', 'inb_1', 'msg_gone', 6);

  t.deepEqual(await migrateToLatest(store.db), migrationsFrom('0010-webhook-failure-streak'));
  const columns = store.sqlite.prepare('select name from pragma_table_info(?)').all('webhook_endpoints') as {
    name: string;
  }[];
  t.true(columns.some((c) => c.name === 'last_failed_at'));
  const raw = store.sqlite.prepare('select name from pragma_table_info(?)').all('message_raw') as {
    name: string;
  }[];
  t.deepEqual(
    raw.map((c) => c.name),
    ['message_id', 'signing', 'size', 'bytes', 'created_at'],
  );
  t.deepEqual(
    store.sqlite.prepare('select project_id, mode, idempotency_key, message_id from inbound_replies').all(),
    [{ project_id: 'prj_1', mode: 'test', idempotency_key: 'r1', message_id: 'msg_t' }],
  );
  // The same key may now be used once per mode.
  store.sqlite
    .prepare(
      `insert into inbound_replies (project_id, mode, idempotency_key, inbound_id, message_id, created_at)
       values ('prj_1', 'live', 'r1', 'inb_1', 'msg_l', 7)`,
    )
    .run();
  t.is((store.sqlite.prepare('select count(*) as n from inbound_replies').get() as { n: number }).n, 2);
  const inbound = store.sqlite.prepare('select name from pragma_table_info(?)').all('inbound_messages') as {
    name: string;
  }[];
  t.true(inbound.some((c) => c.name === 'parse_error'));
});

test('0012 keys analytics by mode (test records move to test rows, cancelled sends and latencies of later bounces leave) and indexes settled records', async (t) => {
  const { store } = await storeMigratedTo(t, '0011-inbound-reply-mode');
  const { sqlite } = store;
  sqlite.pragma('foreign_keys = OFF');
  const message = sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, ?, 'transactional', ?, 'a@x.test', 'a@x.test', 'x.test', null, 'Hi', '{}', '{}', 1, 1)`,
  );
  message.run('msg_live', 'live', 'partially_delivered');
  message.run('msg_test', 'test', 'partially_delivered');
  message.run('msg_cancel', 'live', 'cancelled');
  sqlite.pragma('foreign_keys = ON');
  // The records and the rows the projection made of them before 0012.
  const record = sqlite.prepare(
    `insert into analytics_recipients (message_id, recipient, project_id, day, lane, status, queued_at, delivered_at,
       latency_ms, opened, clicked, updated_at)
     values (?, ?, 'prj_1', ?, ?, ?, 1, ?, ?, 0, 0, 1)`,
  );
  record.run('msg_live', 'a@x.test', 100, 'gmail', 'delivered', 5, 1000);
  record.run('msg_live', 'b@x.test', 100, 'gmail', 'bounced', 5, 3000);
  record.run('msg_test', 'ok@posthorn.test', 100, 'sandbox', 'delivered', 5, 20);
  record.run('msg_test', 'bounce@posthorn.test', 100, 'sandbox', 'bounced', null, null);
  record.run('msg_cancel', 'd@x.test', 101, '', 'scheduled', null, null);
  record.run('msg_gone', 'e@x.test', 100, '', 'queued', null, null);
  const daily = sqlite.prepare(
    `insert into analytics_daily (project_id, day, lane, accepted, queued, delivered, bounced, latency)
     values ('prj_1', ?, ?, ?, ?, ?, ?, ?)`,
  );
  daily.run(100, 'gmail', 2, 0, 1, 1, '[1,1000,1,3000,1]');
  daily.run(100, 'sandbox', 2, 0, 1, 1, '[1,20,1]');
  daily.run(100, '', 1, 1, 0, 0, '[]');
  daily.run(101, '', 1, 1, 0, 0, '[]');
  // A day whose records retention already removed keeps what it had.
  daily.run(50, 'gmail', 7, 0, 7, 0, '[1,500,7]');

  t.deepEqual(await migrateToLatest(store.db), migrationsFrom('0012-analytics-mode'));
  t.deepEqual(
    sqlite
      .prepare(
        `select mode, day, lane, accepted, queued, delivered, bounced, latency from analytics_daily
         order by mode, day, lane`,
      )
      .all(),
    [
      {
        mode: 'live',
        day: 50,
        lane: 'gmail',
        accepted: 7,
        queued: 0,
        delivered: 7,
        bounced: 0,
        latency: '[1,500,7]',
      },
      { mode: 'live', day: 100, lane: '', accepted: 1, queued: 1, delivered: 0, bounced: 0, latency: '[]' },
      {
        mode: 'live',
        day: 100,
        lane: 'gmail',
        accepted: 2,
        queued: 0,
        delivered: 1,
        bounced: 1,
        latency: '[1,1000,1]',
      },
      {
        mode: 'live',
        day: 100,
        lane: 'sandbox',
        accepted: 0,
        queued: 0,
        delivered: 0,
        bounced: 0,
        latency: '[1]',
      },
      { mode: 'live', day: 101, lane: '', accepted: 0, queued: 0, delivered: 0, bounced: 0, latency: '[1]' },
      {
        mode: 'test',
        day: 100,
        lane: 'sandbox',
        accepted: 2,
        queued: 0,
        delivered: 1,
        bounced: 1,
        latency: '[1,20,1]',
      },
    ],
  );
  t.deepEqual(
    sqlite
      .prepare('select message_id, recipient, mode, status from analytics_recipients order by 1, 2')
      .all(),
    [
      { message_id: 'msg_cancel', recipient: 'd@x.test', mode: 'live', status: 'cancelled' },
      { message_id: 'msg_gone', recipient: 'e@x.test', mode: 'live', status: 'queued' },
      { message_id: 'msg_live', recipient: 'a@x.test', mode: 'live', status: 'delivered' },
      { message_id: 'msg_live', recipient: 'b@x.test', mode: 'live', status: 'bounced' },
      { message_id: 'msg_test', recipient: 'bounce@posthorn.test', mode: 'test', status: 'bounced' },
      { message_id: 'msg_test', recipient: 'ok@posthorn.test', mode: 'test', status: 'delivered' },
    ],
  );
  // A report reads one mode's range of the primary key.
  const plan = (
    sqlite
      .prepare(
        "explain query plan select * from analytics_daily where project_id = 'prj_1' and mode = 'live' and day between 1 and 200",
      )
      .all() as { detail: string }[]
  )
    .map((r) => r.detail)
    .join('; ');
  t.regex(
    plan,
    /SEARCH analytics_daily USING PRIMARY KEY \(project_id=\? AND mode=\? AND day>\? AND day<\?\)/,
  );
  // Retention finds settled records by their last change (analytics/store.ts), pending ones never.
  const purge = (
    sqlite
      .prepare(
        `explain query plan select message_id, recipient from analytics_recipients
         where status not in ('scheduled', 'queued', 'deferred') and updated_at < 10 limit 5`,
      )
      .all() as { detail: string }[]
  )
    .map((r) => r.detail)
    .join('; ');
  t.regex(purge, /SEARCH analytics_recipients USING INDEX analytics_recipients_settled \(updated_at<\?\)/);
});

test('every migration file is registered in the index under its file name', (t) => {
  const folder = fileURLToPath(new URL('../../src/platform/db/migrations/', import.meta.url));
  const files = readdirSync(folder)
    .filter((name) => /^\d{4}[a-z]?-.*\.js$/.test(name))
    .map((name) => name.replace(/\.js$/, ''))
    .sort();
  t.deepEqual(Object.keys(migrations).sort(), files);
});
