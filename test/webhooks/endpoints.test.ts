import { query } from '../helpers/sql.js';
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

const open = { webhooks: { allow_http: true, allow_private_targets: true } };

test('an endpoint is created with a whsec_ secret shown only at creation, then read, updated and deleted', async (t) => {
  const ph = await startPosthorn(t, open);
  const created = await ph.request('POST', '/v1/webhooks', {
    body: {
      url: 'http://127.0.0.1:9/hook',
      events: ['email.delivered', 'email.bounced'],
      description: 'ops',
    },
  });
  t.is(created.status, 201, created.text);
  t.regex(created.body.id, /^wh_/);
  t.regex(created.body.secret, /^whsec_/);
  t.like(created.body, {
    url: 'http://127.0.0.1:9/hook',
    events: ['email.delivered', 'email.bounced'],
    description: 'ops',
    status: 'enabled',
    disabled_reason: null,
  });
  t.truthy(Date.parse(created.body.created_at));

  const list = await ph.request('GET', '/v1/webhooks');
  t.is(list.status, 200);
  t.is(list.body.data.length, 1);
  t.is(list.body.has_more, false);
  t.false('secret' in list.body.data[0]);
  t.false(list.text.includes(created.body.secret));

  const one = await ph.request('GET', `/v1/webhooks/${created.body.id}`);
  t.is(one.status, 200);
  t.false('secret' in one.body);

  const updated = await ph.request('PATCH', `/v1/webhooks/${created.body.id}`, {
    body: { events: ['*'], description: null, status: 'disabled' },
  });
  t.is(updated.status, 200, updated.text);
  t.like(updated.body, { events: ['*'], description: null, status: 'disabled', disabled_reason: 'manual' });
  const enabled = await ph.request('PATCH', `/v1/webhooks/${created.body.id}`, {
    body: { status: 'enabled' },
  });
  t.like(enabled.body, { status: 'enabled', disabled_reason: null });

  t.is((await ph.request('DELETE', `/v1/webhooks/${created.body.id}`)).status, 204);
  t.is((await ph.request('GET', `/v1/webhooks/${created.body.id}`)).status, 404);
  t.is((await ph.request('DELETE', `/v1/webhooks/${created.body.id}`)).status, 404);
});

test('the signing secret is stored sealed, never in clear', async (t) => {
  const ph = await startPosthorn(t, open);
  const created = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'http://127.0.0.1:9/', events: ['*'] },
  });
  const [row] = await query(
    ph.server.kernel.store,
    'select * from webhook_endpoints where id = ?',
    created.body.id,
  );
  t.false(JSON.stringify(row).includes(created.body.secret.slice(6)));
  t.regex(String(row?.secret_sealed), /^v1\./);
});

test('URLs must be https:// unless webhooks.allow_http is set', async (t) => {
  const ph = await startPosthorn(t);
  const http = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'http://hooks.example.com/', events: ['*'] },
  });
  t.is(http.status, 400);
  t.regex(http.body.error, /https/);
  const https = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'https://hooks.example.com/', events: ['*'] },
  });
  t.is(https.status, 201);
  const metadata = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'https://169.254.169.254/latest/meta-data', events: ['*'] },
  });
  t.is(metadata.status, 400);
  const loopback = await ph.request('PATCH', `/v1/webhooks/${https.body.id}`, {
    body: { url: 'https://127.0.0.1/' },
  });
  t.is(loopback.status, 400);
});

test('invalid requests are refused with 400', async (t) => {
  const ph = await startPosthorn(t, open);
  const cases = [
    { url: 'http://127.0.0.1:9/', events: [] },
    { url: 'http://127.0.0.1:9/', events: ['email.teleported'] },
    { url: 'http://127.0.0.1:9/', events: ['*', 'email.sent'] },
    { url: 'http://127.0.0.1:9/', events: ['*'], secret: 'mine' },
    { events: ['*'] },
  ];
  for (const body of cases) {
    const res = await ph.request('POST', '/v1/webhooks', { body });
    t.is(res.status, 400, JSON.stringify(body));
  }
  const created = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'http://127.0.0.1:9/', events: ['*'] },
  });
  t.is((await ph.request('PATCH', `/v1/webhooks/${created.body.id}`, { body: {} })).status, 400);
  t.is((await ph.request('GET', `/v1/webhooks/${created.body.id}/deliveries?limit=0`)).status, 400);
  t.is((await ph.request('GET', `/v1/webhooks/${created.body.id}/deliveries?limit=201`)).status, 400);
  t.is((await ph.request('GET', `/v1/webhooks/${created.body.id}/deliveries?limit=200`)).status, 200);
});

test('webhook routes need the webhooks scopes and only see their own project', async (t) => {
  const ph = await startPosthorn(t, open);
  const reader = await ph.createKey(ph.owner.projectId, ['webhooks:read']);
  const denied = await ph.request('POST', '/v1/webhooks', {
    key: reader,
    body: { url: 'http://127.0.0.1:9/', events: ['*'] },
  });
  t.is(denied.status, 403);
  t.regex(denied.body.error, /webhooks:write/);
  const created = await ph.request('POST', '/v1/webhooks', {
    body: { url: 'http://127.0.0.1:9/', events: ['*'] },
  });
  t.is((await ph.request('GET', '/v1/webhooks', { key: reader })).body.data.length, 1);

  const other = await ph.bootstrap();
  t.is((await ph.request('GET', `/v1/webhooks/${created.body.id}`, { key: other.apiKey })).status, 404);
  t.is((await ph.request('DELETE', `/v1/webhooks/${created.body.id}`, { key: other.apiKey })).status, 404);
  t.is(
    (await ph.request('GET', `/v1/webhooks/${created.body.id}/deliveries`, { key: other.apiKey })).status,
    404,
  );
  t.deepEqual((await ph.request('GET', '/v1/webhooks', { key: other.apiKey })).body.data, []);
});

test('endpoint lists page with limit and after', async (t) => {
  const ph = await startPosthorn(t, open);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      (await ph.request('POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:9/${i}`, events: ['*'] } }))
        .body.id,
    );
  }
  const first = await ph.request('GET', '/v1/webhooks?limit=2');
  t.deepEqual(
    first.body.data.map((e: { id: string }) => e.id),
    ids.slice(0, 2),
  );
  t.true(first.body.has_more);
  const second = await ph.request('GET', `/v1/webhooks?limit=2&after=${ids[1]}`);
  t.deepEqual(
    second.body.data.map((e: { id: string }) => e.id),
    ids.slice(2),
  );
  t.false(second.body.has_more);
});
