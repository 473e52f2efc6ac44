import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, rows, sleep, verifiedDomain } from './helpers.js';

test('a repeated Idempotency-Key returns the first message with 202 and creates nothing', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const headers = { 'idempotency-key': 'signup-7' };
  const first = await ph.request('POST', '/v1/emails', { body: email(), headers });
  const again = await ph.request('POST', '/v1/emails', { body: email({ subject: 'changed' }), headers });
  t.is(again.status, 202);
  t.deepEqual(again.body, first.body);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(await count(ph, 'messages'), 1);
  t.is(await count(ph, 'events'), 1);
  // Keys are per project: another project's identical key is its own.
  const other = await ph.bootstrap();
  await verifiedDomain(ph, 'acme.test', other.projectId);
  const theirs = await ph.request('POST', '/v1/emails', { body: email(), headers, key: other.apiKey });
  t.not(theirs.body.id, first.body.id);
});

test('a key older than 24 hours is forgotten and makes a new message', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const headers = { 'idempotency-key': 'old' };
  const first = await ph.request('POST', '/v1/emails', { body: email(), headers });
  await rows(ph, 'update idempotency_keys set created_at = created_at - 86400001');
  const later = await ph.request('POST', '/v1/emails', { body: email(), headers });
  t.is(later.status, 202);
  t.not(later.body.id, first.body.id);
  t.is(await count(ph, 'idempotency_keys'), 1);
});

test('concurrent requests with the same key create exactly one message', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const headers = { 'idempotency-key': 'race' };
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => ph.request('POST', '/v1/emails', { body: email(), headers })),
  );
  t.true(responses.every((r) => r.status === 202));
  t.is(new Set(responses.map((r) => r.body.id)).size, 1);
  t.is(await count(ph, 'messages'), 1);
  t.is(await count(ph, 'delivery_jobs'), 1);
  t.is(await count(ph, 'events'), 1);
});

test('batch items derive their keys from the header base key and their index', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const headers = { 'idempotency-key': 'batch-1' };
  const body = { emails: [email(), email({ idempotency_key: 'own' }), email()] };
  const first = await ph.request('POST', '/v1/emails/batch', { body, headers });
  t.is(first.status, 202, first.text);
  const again = await ph.request('POST', '/v1/emails/batch', { body, headers });
  t.deepEqual(again.body, first.body);
  t.is(await count(ph, 'messages'), 3);
  const keys = await rows(ph, 'select key from idempotency_keys order by key');
  t.deepEqual(keys, [{ key: 'batch-1-0' }, { key: 'batch-1-2' }, { key: 'own' }]);
  // A single send with a derived key finds the batch item's message.
  const single = await ph.request('POST', '/v1/emails', {
    body: email(),
    headers: { 'idempotency-key': 'batch-1-2' },
  });
  t.is(single.body.id, first.body.data[2].id);
});

test('a test key and a live key of one project keep separate idempotency keys', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const headers = { 'idempotency-key': 'order-1' };
  const sandboxed = await ph.request('POST', '/v1/emails', { key: testKey, body: email(), headers });
  t.is(sandboxed.status, 202, sandboxed.text);
  // The live send is its own message, not the test one (which only ever reaches the sandbox sink).
  const live = await ph.request('POST', '/v1/emails', {
    body: email({ to: ['bob@example.com'], subject: 'Live' }),
    headers,
  });
  t.is(live.status, 202, live.text);
  t.not(live.body.id, sandboxed.body.id);
  t.is(live.headers.get('idempotent-replayed'), null);
  t.deepEqual(await rows(ph, 'select mode, subject from messages order by id'), [
    { mode: 'test', subject: 'Hello' },
    { mode: 'live', subject: 'Live' },
  ]);
  // Each mode's retry replays its own message.
  const liveAgain = await ph.request('POST', '/v1/emails', { body: email(), headers });
  t.is(liveAgain.body.id, live.body.id);
  t.is(liveAgain.headers.get('idempotent-replayed'), 'true');
  const testAgain = await ph.request('POST', '/v1/emails', { key: testKey, body: email(), headers });
  t.is(testAgain.body.id, sandboxed.body.id);
  t.is(await count(ph, 'messages'), 2);
  // A batch item's key is per mode too.
  const batch = await ph.request('POST', '/v1/emails/batch', {
    key: testKey,
    body: { emails: [email({ idempotency_key: 'order-1' })] },
  });
  t.is(batch.body.data[0].id, sandboxed.body.id);
});

test('a retry with the same Idempotency-Key replays the send after its send_at has passed', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  // Far enough ahead that a loaded host still accepts it; then the retry waits until it has passed.
  const sendAt = Date.now() + 3000;
  const body = email({ send_at: new Date(sendAt).toISOString() });
  const headers = { 'idempotency-key': 'sched-1' };
  const first = await ph.request('POST', '/v1/emails', { body, headers });
  t.is(first.status, 202, first.text);
  await sleep(Math.max(0, sendAt - Date.now()) + 300);
  const retry = await ph.request('POST', '/v1/emails', { body, headers });
  t.is(retry.status, 202, retry.text);
  t.is(retry.body.id, first.body.id);
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  t.is(await count(ph, 'messages'), 1);
  // Without a stored send to replay, the rule still holds, in the same 400 as before.
  const fresh = await ph.request('POST', '/v1/emails', { body, headers: { 'idempotency-key': 'sched-2' } });
  t.is(fresh.status, 400);
  t.is(fresh.body.error, 'Invalid body: send_at: must be in the future.');
  t.deepEqual(fresh.body.details, [{ path: 'send_at', message: 'must be in the future' }]);
  t.is(await count(ph, 'messages'), 1);
});

test('a batch retry replays items whose send_at has passed; an item with nothing to replay is refused', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const sendAt = Date.now() + 3000;
  const soon = new Date(sendAt).toISOString();
  const headers = { 'idempotency-key': 'batch-sched' };
  const first = await ph.request('POST', '/v1/emails/batch', {
    body: { emails: [email({ send_at: soon }), email({ to: ['b@example.com'], send_at: soon })] },
    headers,
  });
  t.is(first.status, 202, first.text);
  await sleep(Math.max(0, sendAt - Date.now()) + 300);
  const retry = await ph.request('POST', '/v1/emails/batch', {
    body: {
      emails: [
        email({ send_at: soon }),
        email({ to: ['b@example.com'], send_at: soon }),
        email({ to: ['c@example.com'], send_at: soon }),
      ],
    },
    headers,
  });
  t.is(retry.status, 207, retry.text);
  t.is(retry.body.data[0].id, first.body.data[0].id);
  t.is(retry.body.data[1].id, first.body.data[1].id);
  t.deepEqual(retry.body.data[2], {
    index: 2,
    status_code: 400,
    error: 'Invalid email: send_at: must be in the future.',
    details: [{ path: 'send_at', message: 'must be in the future' }],
  });
  t.is(await count(ph, 'messages'), 2);
});
