import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, verifiedDomain } from './helpers.js';

test('a repeated Idempotency-Key returns the first message with 202 and creates nothing', async (t) => {
  const ph = await startPosthorn(t);
  verifiedDomain(ph);
  const headers = { 'idempotency-key': 'signup-7' };
  const first = await ph.request('POST', '/v1/emails', { body: email(), headers });
  const again = await ph.request('POST', '/v1/emails', { body: email({ subject: 'changed' }), headers });
  t.is(again.status, 202);
  t.deepEqual(again.body, first.body);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(count(ph, 'messages'), 1);
  t.is(count(ph, 'events'), 1);
  // Keys are per project: another project's identical key is its own.
  const other = await ph.bootstrap();
  verifiedDomain(ph, 'acme.test', other.projectId);
  const theirs = await ph.request('POST', '/v1/emails', { body: email(), headers, key: other.apiKey });
  t.not(theirs.body.id, first.body.id);
});

test('a key older than 24 hours is forgotten and makes a new message', async (t) => {
  const ph = await startPosthorn(t);
  verifiedDomain(ph);
  const headers = { 'idempotency-key': 'old' };
  const first = await ph.request('POST', '/v1/emails', { body: email(), headers });
  ph.server.kernel.store.sqlite
    .prepare('update idempotency_keys set created_at = created_at - 86400001')
    .run();
  const later = await ph.request('POST', '/v1/emails', { body: email(), headers });
  t.is(later.status, 202);
  t.not(later.body.id, first.body.id);
  t.is(count(ph, 'idempotency_keys'), 1);
});

test('concurrent requests with the same key create exactly one message', async (t) => {
  const ph = await startPosthorn(t);
  verifiedDomain(ph);
  const headers = { 'idempotency-key': 'race' };
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => ph.request('POST', '/v1/emails', { body: email(), headers })),
  );
  t.true(responses.every((r) => r.status === 202));
  t.is(new Set(responses.map((r) => r.body.id)).size, 1);
  t.is(count(ph, 'messages'), 1);
  t.is(count(ph, 'delivery_jobs'), 1);
  t.is(count(ph, 'events'), 1);
});

test('batch items derive their keys from the header base key and their index', async (t) => {
  const ph = await startPosthorn(t);
  verifiedDomain(ph);
  const headers = { 'idempotency-key': 'batch-1' };
  const body = { emails: [email(), email({ idempotency_key: 'own' }), email()] };
  const first = await ph.request('POST', '/v1/emails/batch', { body, headers });
  t.is(first.status, 202, first.text);
  const again = await ph.request('POST', '/v1/emails/batch', { body, headers });
  t.deepEqual(again.body, first.body);
  t.is(count(ph, 'messages'), 3);
  const keys = ph.server.kernel.store.sqlite.prepare('select key from idempotency_keys order by key').all();
  t.deepEqual(keys, [{ key: 'batch-1-0' }, { key: 'batch-1-2' }, { key: 'own' }]);
  // A single send with a derived key finds the batch item's message.
  const single = await ph.request('POST', '/v1/emails', {
    body: email(),
    headers: { 'idempotency-key': 'batch-1-2' },
  });
  t.is(single.body.id, first.body.data[2].id);
});
