import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { failInserts, query, stopFailingInserts } from '../helpers/sql.js';
import { count, email, rows, verifiedDomain } from './helpers.js';

test('an accepted send answers 202 {id, status, created_at} and writes message, recipients, jobs and event', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails', {
    body: email({
      to: ['ann@example.com', 'bob@example.com'],
      cc: ['cy@other.test'],
      bcc: ['dee@Other.test'],
      tags: { flow: 'welcome' },
      track_opens: false,
    }),
  });
  t.is(res.status, 202, res.text);
  t.deepEqual(Object.keys(res.body).sort(), ['created_at', 'id', 'status']);
  t.regex(res.body.id, /^msg_[0-9A-Z]{26}$/);
  t.is(res.body.status, 'queued');
  t.false(Number.isNaN(Date.parse(res.body.created_at)));

  const [message] = await rows(ph, 'select * from messages where id = ?', res.body.id);
  t.like(message, {
    status: 'queued',
    mode: 'live',
    traffic: 'transactional',
    from_email: 'hello@acme.test',
    track_opens: 0,
  });
  t.is(message?.track_clicks, null);
  t.deepEqual(
    await rows(
      ph,
      'select kind, email, status from message_recipients where message_id = ? order by id',
      res.body.id,
    ),
    [
      { kind: 'to', email: 'ann@example.com', status: 'queued' },
      { kind: 'to', email: 'bob@example.com', status: 'queued' },
      { kind: 'cc', email: 'cy@other.test', status: 'queued' },
      { kind: 'bcc', email: 'dee@other.test', status: 'queued' },
    ],
  );
  // One job per recipient domain, due now, unclaimed.
  const jobs = await rows<Record<string, unknown>>(
    ph,
    'select domain, state, mode, traffic, lane, attempts, locked_until, due_at from delivery_jobs where message_id = ? order by domain',
    res.body.id,
  );
  t.deepEqual(
    jobs.map((j) => [j.domain, j.state, j.mode, j.traffic, j.lane, j.attempts, j.locked_until]),
    [
      ['example.com', 'queued', 'live', 'transactional', null, 0, null],
      ['other.test', 'queued', 'live', 'transactional', null, 0, null],
    ],
  );
  t.true(Math.abs((jobs[0]?.due_at as number) - Date.parse(res.body.created_at)) < 5);
  const events = await ph.server.services.events.forMessage(res.body.id);
  t.is(events.length, 1);
  t.is(events[0]?.type, 'email.sent');
  t.like(events[0]?.data, {
    email_id: res.body.id,
    from: 'Acme <hello@acme.test>',
    subject: 'Hello',
    tags: { flow: 'welcome' },
  });
  t.deepEqual(events[0]?.data.to, ['ann@example.com', 'bob@example.com']);
});

test('a ph_test_ key is accepted like a live one and its rows are marked test', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const key = await ph.createKey(ph.owner.projectId, ['emails:send'], 'test');
  const res = await ph.request('POST', '/v1/emails', { body: email(), key });
  t.is(res.status, 202);
  t.deepEqual(await rows(ph, 'select mode from messages where id = ?', res.body.id), [{ mode: 'test' }]);
  t.deepEqual(await rows(ph, 'select mode from delivery_jobs where message_id = ?', res.body.id), [
    { mode: 'test' },
  ]);
});

test('a failure in the middle of the write leaves nothing behind, and the key can be used again', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const store = ph.server.kernel.store;
  // The event is the last row written; make it fail so everything before it must roll back.
  await failInserts(store, { name: 'fail_events', table: 'events', message: 'disk on fire' });
  const headers = { 'idempotency-key': 'order-42' };
  const failed = await ph.request('POST', '/v1/emails', { body: email(), headers });
  t.is(failed.status, 500);
  for (const table of ['messages', 'message_recipients', 'delivery_jobs', 'idempotency_keys', 'events']) {
    t.is(await count(ph, table), 0, `${table} is empty`);
  }
  await stopFailingInserts(store, 'fail_events', 'events');
  const retried = await ph.request('POST', '/v1/emails', { body: email(), headers });
  t.is(retried.status, 202);
  t.is(await count(ph, 'messages'), 1);
});

test('GET /v1/emails/{id} shows the current status, and 404 for another project or a bad id', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const sent = await ph.request('POST', '/v1/emails', { body: email() });
  const got = await ph.request('GET', `/v1/emails/${sent.body.id}`);
  t.is(got.status, 200);
  t.deepEqual(got.body, {
    ...sent.body,
    recipients: [{ email: 'ann@example.com', type: 'to', status: 'queued' }],
  });
  await query(ph.server.kernel.store, `update messages set status = 'delivered' where id = ?`, sent.body.id);
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`)).body.status, 'delivered');

  const sendOnly = await ph.createKey(ph.owner.projectId, ['emails:send']);
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: sendOnly })).status, 200);
  const domainsOnly = await ph.createKey(ph.owner.projectId, ['domains:read']);
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: domainsOnly })).status, 403);

  const other = await ph.bootstrap();
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: other.apiKey })).status, 404);
  t.is((await ph.request('GET', '/v1/emails/msg_nope')).status, 404);
});

test('GET /v1/emails lists newest first with limit, after and has_more, and needs emails:read', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await ph.request('POST', '/v1/emails', {
      body: email({ to: [`Person ${i} <p${i}@example.com>`], cc: ['cc@example.com'], subject: `S${i}` }),
    });
    ids.push(res.body.id);
  }
  const other = await ph.bootstrap();
  await verifiedDomain(ph, 'acme.test', other.projectId);
  await ph.request('POST', '/v1/emails', { body: email(), key: other.apiKey });

  const first = await ph.request('GET', '/v1/emails?limit=2');
  t.is(first.status, 200);
  t.true(first.body.has_more);
  t.deepEqual(
    first.body.data.map((m: { id: string }) => m.id),
    [ids[4], ids[3]],
  );
  t.deepEqual(first.body.data[0], {
    id: ids[4],
    from: 'Acme <hello@acme.test>',
    to: ['Person 4 <p4@example.com>'],
    subject: 'S4',
    status: 'queued',
    created_at: first.body.data[0].created_at,
  });
  const second = await ph.request('GET', `/v1/emails?limit=2&after=${ids[3]}`);
  t.deepEqual(
    second.body.data.map((m: { id: string }) => m.id),
    [ids[2], ids[1]],
  );
  const last = await ph.request('GET', `/v1/emails?limit=2&after=${ids[1]}`);
  t.deepEqual(
    last.body.data.map((m: { id: string }) => m.id),
    [ids[0]],
  );
  t.false(last.body.has_more);
  t.is((await ph.request('GET', '/v1/emails')).body.data.length, 5, 'default limit 50, own project only');

  for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'after=xyz']) {
    const res = await ph.request('GET', `/v1/emails?${bad}`);
    t.is(res.status, 400, bad);
    t.regex(res.body.error, /Invalid query: (limit|after)/);
  }
  const sendOnly = await ph.createKey(ph.owner.projectId, ['emails:send']);
  const refused = await ph.request('GET', '/v1/emails', { key: sendOnly });
  t.is(refused.status, 403);
  t.regex(refused.body.error, /emails:read/);
});

test('the send routes are in the OpenAPI document', async (t) => {
  const ph = await startPosthorn(t);
  const doc = (await ph.request('GET', '/openapi.json')).body;
  t.truthy(doc.paths['/v1/emails'].post.requestBody);
  t.truthy(doc.paths['/v1/emails'].get);
  t.truthy(doc.paths['/v1/emails/batch'].post.responses['207']);
  t.truthy(doc.paths['/v1/emails/{id}'].get);
  t.truthy(doc.paths['/v1/emails/{id}/schedule'].delete);
  const params = doc.paths['/v1/emails'].post.parameters.map((p: { name: string }) => p.name);
  t.true(params.includes('Idempotency-Key'));
});

test('sends that share a commit are isolated: one failing send rolls back alone', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  await failInserts(ph.server.kernel.store, {
    name: 'fail_boom',
    table: 'delivery_jobs',
    when: `(select subject from messages where id = new.message_id) = 'boom'`,
    message: 'boom',
  });
  const subjects = ['a', 'b', 'boom', 'c', 'd', 'e'];
  const responses = await Promise.all(
    subjects.map((subject) => ph.request('POST', '/v1/emails', { body: email({ subject }) })),
  );
  t.deepEqual(
    responses.map((r) => r.status),
    [202, 202, 500, 202, 202, 202],
  );
  t.is(await count(ph, 'messages'), 5);
  t.is(await count(ph, 'messages', "subject = 'boom'"), 0);
  t.is(await count(ph, 'message_recipients'), 5);
  t.is(await count(ph, 'events'), 5);
});

test('a NUL character in any field, the query or the path is a 400 naming where, on either engine, and nothing is written', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const cases: Array<[Record<string, unknown>, string]> = [
    [email({ subject: 'Hi\u0000there' }), 'subject'],
    [email({ text: 'line\u0000' }), 'text'],
    [email({ html: '<p>\u0000</p>' }), 'html'],
    [email({ tags: { flow: 'a\u0000b' } }), 'tags.flow'],
    [email({ to: ['ann@example.com', 'b\u0000@example.com'] }), 'to[1]'],
  ];
  for (const [body, path] of cases) {
    const res = await ph.request('POST', '/v1/emails', { body });
    t.is(res.status, 400, `${path}: ${res.text}`);
    t.deepEqual(res.body.details, [{ path, message: 'must not contain the NUL character (U+0000)' }]);
  }
  const query = await ph.request('GET', '/v1/emails?after=msg_%00');
  t.is(query.status, 400, query.text);
  t.regex(query.body.error, /^Invalid query: after: must not contain the NUL character/);
  const path = await ph.request('GET', '/v1/emails/msg_%00');
  t.true(path.status === 400 || path.status === 404, path.text);
  t.is(await count(ph, 'messages'), 0);
});
