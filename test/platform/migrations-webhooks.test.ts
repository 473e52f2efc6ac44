import test from 'ava';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrationsFrom, storeMigratedTo } from '../helpers/migrated-store.js';

test('0016 gives each webhook endpoint the mode of the key its creation was audited with, else live', async (t) => {
  const { store } = await storeMigratedTo(t, '0015-cancelled-recipients');
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

  t.deepEqual(await migrateToLatest(store.db), migrationsFrom('0016-webhook-endpoint-mode'));
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

test('0017 ends the pending attempts queued before 0016 for an endpoint of the other mode than their message, as failed and never requested', async (t) => {
  const { store } = await storeMigratedTo(t, '0015-cancelled-recipients');
  const { sqlite } = store;
  sqlite.exec(`insert into organizations (id, name, created_at) values ('org_1', 'o', 0);
    insert into projects (id, organization_id, name, status, created_at, updated_at)
    values ('prj_1', 'org_1', 'p', 'active', 0, 0);
    insert into api_keys (id, project_id, name, mode, key_hash, key_hint, scopes, created_at)
    values ('key_test', 'prj_1', 'sandbox', 'test', 'hash-test', 'x', '["full_access"]', 0);
    insert into webhook_endpoints (id, project_id, url, description, events, status, secret_sealed, created_at, updated_at)
    values ('wh_live', 'prj_1', 'https://hooks.example.com/live', null, '["*"]', 'enabled', 'sealed', 0, 0),
           ('wh_test', 'prj_1', 'https://hooks.example.com/test', null, '["*"]', 'disabled', 'sealed', 0, 0);
    insert into audit_log (id, organization_id, project_id, actor, action, target, created_at)
    values ('aud_1', 'org_1', 'prj_1', 'key:key_test', 'webhook.create', 'wh_test', 0);`);
  const message = sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, 'prj_1', null, ?, 'transactional', 'sent', 'a@x.test', 'a@x.test', 'x.test', null, 'Hi', '{}', '{}', 1, 1)`,
  );
  message.run('msg_live', 'live');
  message.run('msg_test', 'test');
  const event = sqlite.prepare(
    `insert into events (id, project_id, type, message_id, recipient, data, created_at)
     values (?, 'prj_1', ?, ?, null, '{}', 1)`,
  );
  event.run('evt_live', 'email.delivered', 'msg_live');
  event.run('evt_test', 'email.bounced', 'msg_test');
  event.run('evt_sent', 'email.sent', 'msg_test');
  event.run('evt_domain', 'domain.updated', null);
  // evt_gone_test and evt_gone_received were removed by retention: their payloads tell.
  const webhook = sqlite.prepare(
    `insert into webhook_messages (id, endpoint_id, project_id, event_id, event_type, body, created_at)
     values (?, ?, 'prj_1', ?, ?, ?, 1)`,
  );
  const payload = (type: string, emailId: string | null) =>
    JSON.stringify({
      id: 'evt_x',
      type,
      created_at: '1970-01-01T00:00:00.001Z',
      data: { email_id: emailId },
    });
  const attempt = sqlite.prepare(
    `insert into webhook_attempts (id, message_id, endpoint_id, attempt, trigger, state, due_at, locked_until, created_at)
     values (?, ?, ?, 2, 'retry', ?, 10, ?, 1)`,
  );
  const queue = (
    id: string,
    endpoint: string,
    eventId: string,
    type: string,
    emailId: string | null,
    state = 'pending',
    lockedUntil: number | null = null,
  ) => {
    webhook.run(`whm_${id}`, endpoint, eventId, type, payload(type, emailId));
    attempt.run(`whd_${id}`, `whm_${id}`, endpoint, state, lockedUntil);
  };
  queue('test_to_live', 'wh_live', 'evt_test', 'email.bounced', 'msg_test', 'pending', 99);
  queue('live_to_live', 'wh_live', 'evt_live', 'email.delivered', 'msg_live');
  queue('live_to_test', 'wh_test', 'evt_live', 'email.delivered', 'msg_live');
  queue('test_to_test', 'wh_test', 'evt_test', 'email.bounced', 'msg_test');
  queue('domain_to_test', 'wh_test', 'evt_domain', 'domain.updated', null);
  queue('sent_test_to_live', 'wh_live', 'evt_sent', 'email.sent', 'msg_test', 'succeeded');
  queue('gone_test_to_live', 'wh_live', 'evt_gone_test', 'email.opened', 'msg_test');
  queue('gone_received_to_test', 'wh_test', 'evt_gone_received', 'email.received', 'inb_1');

  t.deepEqual(await migrateToLatest(store.db), migrationsFrom('0016-webhook-endpoint-mode'));
  const notSent = (message: string, endpoint: string) => ({
    state: 'failed',
    locked_until: null,
    requested_at: null,
    error: `Not sent: queued before endpoints had a mode, for an event about a ${message} message; a ${endpoint} endpoint receives the events of ${endpoint} messages only.`,
  });
  const kept = (state: string) => ({ state, locked_until: null, requested_at: null, error: null });
  const attempts = Object.fromEntries(
    (
      sqlite.prepare('select id, state, locked_until, requested_at, error from webhook_attempts').all() as {
        id: string;
      }[]
    ).map(({ id, ...rest }) => [id, rest]),
  );
  t.deepEqual(attempts, {
    whd_test_to_live: notSent('test', 'live'),
    whd_live_to_live: kept('pending'),
    whd_live_to_test: notSent('live', 'test'),
    whd_test_to_test: kept('pending'),
    whd_domain_to_test: kept('pending'),
    whd_sent_test_to_live: kept('succeeded'),
    whd_gone_test_to_live: notSent('test', 'live'),
    whd_gone_received_to_test: kept('pending'),
  });
});
