import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

test('POST /v1/suppressions adds a normalized address and returns 201 with the record', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('POST', '/v1/suppressions', {
    body: { email: ' Ann.Lee@Example.COM ', reason: 'manual_block' },
  });
  t.is(res.status, 201);
  t.like(res.body, { email: 'ann.lee@example.com', reason: 'manual_block', source: 'api', message_id: null });
  t.regex(res.body.id, /^sup_/);
  t.false(Number.isNaN(Date.parse(res.body.created_at)));
});

test('adding an address already suppressed updates its reason and keeps its identity', async (t) => {
  const ph = await startPosthorn(t);
  const first = await ph.request('POST', '/v1/suppressions', {
    body: { email: 'a@example.com', reason: 'manual_block' },
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await ph.request('POST', '/v1/suppressions', {
    body: { email: 'A@EXAMPLE.com', reason: 'unsubscribe' },
  });
  t.is(second.status, 201);
  t.is(second.body.id, first.body.id);
  t.is(second.body.reason, 'unsubscribe');
  t.is(second.body.created_at, first.body.created_at);
  t.not(second.body.updated_at, first.body.updated_at);
  const list = await ph.request('GET', '/v1/suppressions');
  t.is(list.body.data.length, 1);
});

test('every reason the spec lists is accepted', async (t) => {
  const ph = await startPosthorn(t);
  const reasons = [
    'hard_bounce',
    'spam_complaint',
    'unsubscribe',
    'manual_block',
    'repeated_soft_bounce',
    'abuse_decision',
    'invalid_address',
  ];
  for (const [i, reason] of reasons.entries()) {
    const res = await ph.request('POST', '/v1/suppressions', {
      body: { email: `r${i}@example.com`, reason },
    });
    t.is(res.status, 201, reason);
    t.is(res.body.reason, reason);
  }
});

test('GET finds an address case-insensitively and answers 404 for one not suppressed', async (t) => {
  const ph = await startPosthorn(t);
  await ph.request('POST', '/v1/suppressions', { body: { email: 'kim@bücher.de', reason: 'hard_bounce' } });
  const found = await ph.request('GET', `/v1/suppressions/${encodeURIComponent('KIM@Bücher.DE')}`);
  t.is(found.status, 200);
  t.is(found.body.email, 'kim@xn--bcher-kva.de');
  t.is(found.body.source, 'api', 'added through the API, whatever the reason');
  const missing = await ph.request('GET', '/v1/suppressions/nobody%40example.com');
  t.is(missing.status, 404);
  t.deepEqual(missing.body, { error: 'nobody@example.com is not on the suppression list.' });
  t.is((await ph.request('GET', '/v1/suppressions/not-an-address')).status, 404);
  await ph.request('POST', '/v1/suppressions', {
    body: { email: 'ann+news@example.com', reason: 'unsubscribe' },
  });
  const plus = await ph.request('GET', '/v1/suppressions/Ann+News@example.com');
  t.is(plus.status, 200, 'a + in the path is part of the address');
  t.is(plus.body.email, 'ann+news@example.com');
});

test('DELETE removes an address with 204, and answers 404 when it is not suppressed', async (t) => {
  const ph = await startPosthorn(t);
  await ph.request('POST', '/v1/suppressions', {
    body: { email: 'gone@example.com', reason: 'unsubscribe' },
  });
  const removed = await ph.request('DELETE', '/v1/suppressions/Gone%40Example.com');
  t.is(removed.status, 204);
  t.is(removed.text, '');
  t.is((await ph.request('GET', '/v1/suppressions/gone%40example.com')).status, 404);
  const again = await ph.request('DELETE', '/v1/suppressions/gone%40example.com');
  t.is(again.status, 404);
  t.regex(again.body.error, /not on the suppression list/);
});

test('invalid suppression requests are refused with 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[unknown, RegExp, string]> = [
    [{ reason: 'hard_bounce' }, /email/, 'email'],
    [{ email: 'a@example.com' }, /reason/, 'reason'],
    [{ email: 'a@example.com', reason: 'bored' }, /reason/, 'reason'],
    [
      { email: 'not an address', reason: 'manual_block' },
      /email: "not an address" is not an email address/,
      'email',
    ],
    [{ email: 'a@example.com', reason: 'manual_block', note: 'x' }, /note/, 'note'],
    [{ email: 42, reason: 'manual_block' }, /email/, 'email'],
  ];
  for (const [body, message, path] of cases) {
    const res = await ph.request('POST', '/v1/suppressions', { body });
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(res.body.error, message);
    t.is(res.body.details?.[0]?.path, path);
  }
});

test('a project never sees or removes another project’s suppressions', async (t) => {
  const ph = await startPosthorn(t);
  const other = await ph.bootstrap();
  await ph.request('POST', '/v1/suppressions', {
    body: { email: 'shared@example.com', reason: 'manual_block' },
  });
  t.is((await ph.request('GET', '/v1/suppressions/shared%40example.com', { key: other.apiKey })).status, 404);
  t.is(
    (await ph.request('DELETE', '/v1/suppressions/shared%40example.com', { key: other.apiKey })).status,
    404,
  );
  t.deepEqual((await ph.request('GET', '/v1/suppressions', { key: other.apiKey })).body, {
    data: [],
    has_more: false,
  });
  const hits = await ph.server.services.suppressions.findSuppressed(other.projectId, ['shared@example.com']);
  t.is(hits.size, 0);
  t.is((await ph.request('GET', '/v1/suppressions/shared%40example.com')).status, 200);
});

test('suppression routes enforce the suppressions:read and suppressions:write scopes', async (t) => {
  const ph = await startPosthorn(t);
  const reader = await ph.createKey(ph.owner.projectId, ['suppressions:read']);
  const unrelated = await ph.createKey(ph.owner.projectId, ['templates:read']);
  const post = await ph.request('POST', '/v1/suppressions', {
    key: reader,
    body: { email: 'a@example.com', reason: 'manual_block' },
  });
  t.is(post.status, 403);
  t.regex(post.body.error, /suppressions:write/);
  t.is((await ph.request('DELETE', '/v1/suppressions/a%40example.com', { key: reader })).status, 403);
  t.is((await ph.request('GET', '/v1/suppressions/a%40example.com', { key: reader })).status, 404);
  const list = await ph.request('GET', '/v1/suppressions', { key: unrelated });
  t.is(list.status, 403);
  t.regex(list.body.error, /suppressions:read/);
  t.is((await ph.request('GET', '/v1/suppressions/a%40example.com', { key: unrelated })).status, 403);
});

test('the list pages newest first with limit and after, and filters by reason', async (t) => {
  const ph = await startPosthorn(t);
  for (let i = 0; i < 5; i++) {
    await ph.request('POST', '/v1/suppressions', {
      body: { email: `p${i}@example.com`, reason: i % 2 === 0 ? 'hard_bounce' : 'unsubscribe' },
    });
  }
  const page1 = await ph.request('GET', '/v1/suppressions?limit=2');
  t.deepEqual(
    page1.body.data.map((s: { email: string }) => s.email),
    ['p4@example.com', 'p3@example.com'],
  );
  t.true(page1.body.has_more);
  const page2 = await ph.request('GET', `/v1/suppressions?limit=2&after=${page1.body.data[1].id}`);
  t.deepEqual(
    page2.body.data.map((s: { email: string }) => s.email),
    ['p2@example.com', 'p1@example.com'],
  );
  const page3 = await ph.request('GET', `/v1/suppressions?limit=2&after=${page2.body.data[1].id}`);
  t.is(page3.body.data.length, 1);
  t.false(page3.body.has_more);
  const bounces = await ph.request('GET', '/v1/suppressions?reason=hard_bounce');
  t.is(bounces.body.data.length, 3);
  const bad = await ph.request('GET', '/v1/suppressions?limit=500');
  t.is(bad.status, 400);
  t.regex(bad.body.error, /limit/);
});
