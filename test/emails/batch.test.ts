import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, rows, verifiedDomain } from './helpers.js';

test('a batch whose items are all accepted answers 202 with one result per item', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: [
        email({ to: ['a@example.com'] }),
        email({ to: ['b@example.com'], send_at: new Date(Date.now() + 3_600_000).toISOString() }),
      ],
    },
  });
  t.is(res.status, 202, res.text);
  t.is(res.body.data.length, 2);
  t.like(res.body.data[0], { index: 0, status: 'queued' });
  t.like(res.body.data[1], { index: 1, status: 'scheduled' });
  t.regex(res.body.data[0].id, /^msg_/);
  t.is(await count(ph, 'messages'), 2);
  // Committed together: one transaction, so both share the same created_at.
  const created = await rows<{ created_at: number }>(ph, 'select created_at from messages');
  t.is(created[0]?.created_at, created[1]?.created_at);
});

test('a batch with failing items answers 207: each item validated and checked on its own', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  await ph.server.services.suppressions.add({
    projectId: ph.owner.projectId,
    email: 'gone@example.com',
    reason: 'manual_block',
  });
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: [
        email({ to: ['ok@example.com'] }),
        email({ to: ['gone@example.com'] }),
        email({ to: ['nope'] }),
        email({ from: 'x@unverified.test' }),
        'not an object',
        email({ to: ['ok2@example.com'], attachments: [] }),
      ],
    },
  });
  t.is(res.status, 207, res.text);
  const [ok, suppressed, invalid, sender, notObject, attachments] = res.body.data;
  t.like(ok, { index: 0, status: 'queued' });
  t.deepEqual(Object.keys(suppressed).sort(), ['error', 'index', 'status_code']);
  t.like(suppressed, { index: 1, status_code: 422 });
  t.regex(suppressed.error, /gone@example\.com is on the suppression list/);
  t.like(invalid, { index: 2, status_code: 400 });
  t.regex(invalid.error, /to\[0\]/);
  t.is(invalid.details[0].path, 'to[0]');
  t.like(sender, { index: 3, status_code: 403 });
  t.like(notObject, { index: 4, status_code: 400 });
  t.like(attachments, { index: 5, status_code: 400 });
  t.regex(attachments.error, /attachments/);
  t.is(await count(ph, 'messages'), 1);
});

test('a malformed batch envelope is refused with 400', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const cases: Array<[unknown, RegExp]> = [
    [[email()], /Invalid body/],
    [{ emails: email() }, /emails: must be an array/],
    [{ emails: [] }, /emails: must hold at least 1/],
    [{ emails: Array.from({ length: 101 }, () => email()) }, /emails: must hold at most 100/],
    [{ emails: [email()], extra: 1 }, /extra: is not a supported field/],
  ];
  for (const [body, rule] of cases) {
    const res = await ph.request('POST', '/v1/emails/batch', { body });
    t.is(res.status, 400);
    t.regex(res.body.error, rule);
  }
  t.is(await count(ph, 'messages'), 0);
});

test('a batch of 100 commits in one transaction', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: Array.from({ length: 100 }, (_, i) => email({ to: [`r${i}@example.com`] })) },
  });
  t.is(res.status, 202);
  t.is(await count(ph, 'messages'), 100);
  t.is(await count(ph, 'events', "type = 'email.sent'"), 100);
});

test('admitting a batch lets the event loop turn between items, so other work is not held up', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  // A chain of immediates stands for everything else the process does (other requests, the
  // delivery engine, SMTP sessions): it advances once per turn of the event loop.
  let turns = 0;
  let pending = true;
  const tick = () => {
    turns += 1;
    if (pending) setImmediate(tick);
  };
  setImmediate(tick);
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: Array.from({ length: 100 }, (_, i) => email({ to: [`r${i}@example.com`] })) },
  });
  pending = false;
  t.is(res.status, 202);
  // One turn at least between two items; admitting all 100 in one go allowed a handful.
  t.true(turns >= 99, `${turns} turns of the event loop during the batch`);
});

test('two items of one batch with the same idempotency key: the second is refused with 400 and the batch answers 207', async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_minute_per_key: 2 } });
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: [email({ idempotency_key: 'dup' }), email({ to: ['zed@example.com'], idempotency_key: 'dup' })],
    },
  });
  t.is(res.status, 207, res.text);
  t.like(res.body.data[0], { index: 0, status: 'queued' });
  t.deepEqual(res.body.data[1], {
    index: 1,
    status_code: 400,
    error:
      'Invalid email: idempotency key "dup" is already the key of item 0 in this batch; give each item its own key.',
    details: [
      {
        path: 'idempotency_key',
        message: 'is already the key of item 0 in this batch; give each item its own key',
      },
    ],
  });
  t.is(await count(ph, 'messages'), 1);
  t.is(await count(ph, 'message_recipients', 'email = ?', 'zed@example.com'), 0);
  // The refused item took no slot of the per-key rate limit.
  t.is(res.headers.get('ratelimit-remaining'), '1');
  const next = await ph.request('POST', '/v1/emails', { body: email({ to: ['zed@example.com'] }) });
  t.is(next.status, 202, next.text);
});

test('an item whose own idempotency key equals another item’s derived key is refused', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  // With base key "k", item 1 derives "k-1": the key item 0 names itself.
  const res = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: [email({ idempotency_key: 'k-1' }), email({ to: ['zed@example.com'] })] },
    headers: { 'idempotency-key': 'k' },
  });
  t.is(res.status, 207, res.text);
  t.like(res.body.data[0], { index: 0, status: 'queued' });
  t.like(res.body.data[1], { index: 1, status_code: 400 });
  t.regex(res.body.data[1].error, /"k-1" is already the key of item 0/);
  t.is(await count(ph, 'messages'), 1);
  // The batch retried as it was gives the same answer and still sends nothing to zed.
  const again = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: [email({ idempotency_key: 'k-1' }), email({ to: ['zed@example.com'] })] },
    headers: { 'idempotency-key': 'k' },
  });
  t.deepEqual(again.body, res.body);
  t.is(await count(ph, 'message_recipients', 'email = ?', 'zed@example.com'), 0);
});

test('items refused by a rate limit put Retry-After and that limit’s RateLimit headers on the batch reply', async (t) => {
  const ph = await startPosthorn(t, {
    limits: { sends_per_minute_per_key: 2, sends_per_hour_per_recipient: 1 },
  });
  await verifiedDomain(ph);
  const mixed = await ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: [
        email({ to: ['a@example.com'] }),
        email({ to: ['a@example.com'] }), // refused for the hour: a already had its one
        email({ to: ['b@example.com'] }),
        email({ to: ['c@example.com'] }), // refused for the minute: the key sent 2
      ],
    },
  });
  if (mixed.body.data[3]?.status === 'queued') return t.pass('the minute rolled over within the batch'); // rare
  t.is(mixed.status, 207, mixed.text);
  t.like(mixed.body.data[1], { index: 1, status_code: 429 });
  t.like(mixed.body.data[3], { index: 3, status_code: 429 });
  // The soonest retry that can succeed: the minute's window, not the hour's.
  const retry = Number(mixed.headers.get('retry-after'));
  t.true(retry >= 1 && retry <= 60, `Retry-After: ${mixed.headers.get('retry-after')}`);
  t.is(mixed.headers.get('ratelimit-remaining'), '0');
  t.regex(mixed.headers.get('ratelimit') ?? '', /^"sends-(per-key|per-recipient)";r=0;t=\d+$/);
  // Every item refused: still a 207 (DESIGN §4), and the reply still says when to come back.
  const refused = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: [email({ to: ['d@example.com'] })] },
  });
  if (refused.status === 202) return t.pass('the minute rolled over between requests'); // rare
  t.is(refused.status, 207, refused.text);
  t.like(refused.body.data[0], { index: 0, status_code: 429 });
  t.truthy(refused.headers.get('retry-after'));
  t.regex(refused.headers.get('ratelimit-policy') ?? '', /^"sends-per-key";q=2;w=60$/);
  t.is(await count(ph, 'messages'), 2);
});

test("a suspended project's batch retry replays what was accepted before; new items are refused, and a batch with nothing to replay is one 403", async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const items = [email({ to: ['a@example.com'] }), email({ to: ['b@example.com'] })];
  const batch = (emails: unknown[], key: string) =>
    ph.request('POST', '/v1/emails/batch', { headers: { 'Idempotency-Key': key }, body: { emails } });
  const first = await batch(items, 'order-7');
  t.is(first.status, 202, first.text);
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'suspended', 'test');

  const retry = await batch(items, 'order-7');
  t.is(retry.status, 202, retry.text);
  t.deepEqual(retry.body, first.body, 'the same messages, as before the suspension');
  t.is(retry.headers.get('idempotent-replayed'), null);

  const grown = await batch([...items, email({ to: ['c@example.com'] })], 'order-7');
  t.is(grown.status, 207, grown.text);
  t.deepEqual(grown.body.data.slice(0, 2), first.body.data);
  t.like(grown.body.data[2], { index: 2, status_code: 403 });
  t.regex(grown.body.data[2].error, /This project is suspended/);

  const fresh = await batch(items, 'order-8');
  t.is(fresh.status, 403);
  t.regex(fresh.body.error, /This project is suspended/);
  t.is(await count(ph, 'messages'), 2, 'nothing new was sent');
});
