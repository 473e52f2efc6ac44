import test from 'ava';
import { startCore } from '../helpers/http-core.js';

test('a valid request reaches the handler and every response carries X-Request-ID', async (t) => {
  const { call } = await startCore(t);
  const res = await call('POST', '/v1/things', { body: JSON.stringify({ name: 'a' }) });
  t.is(res.status, 201);
  t.deepEqual(res.body, { name: 'a' });
  t.regex(res.headers.get('x-request-id') ?? '', /^req_/);
  const missing = await call('GET', '/nowhere');
  t.regex(missing.headers.get('x-request-id') ?? '', /^req_/);
});

test('invalid JSON is a 400 with an error body', async (t) => {
  const { call } = await startCore(t);
  const res = await call('POST', '/v1/things', { body: '{"name": ' });
  t.is(res.status, 400);
  t.regex(res.body.error, /not valid JSON/);
});

test('an unknown field is a 400 naming the field', async (t) => {
  const { call } = await startCore(t);
  const res = await call('POST', '/v1/things', { body: JSON.stringify({ name: 'a', colour: 'red' }) });
  t.is(res.status, 400);
  t.regex(res.body.error, /colour/);
  t.regex(res.body.error, /not a supported field/);
});

test('a field of the wrong type is a 400 naming the field and the rule', async (t) => {
  const { call } = await startCore(t);
  const res = await call('POST', '/v1/things', { body: JSON.stringify({ name: '' }) });
  t.is(res.status, 400);
  t.regex(res.body.error, /name/);
});

test('a body over the limit is a 413', async (t) => {
  const { call } = await startCore(t, 1024);
  const res = await call('POST', '/v1/things', { body: JSON.stringify({ name: 'x'.repeat(2000) }) });
  t.is(res.status, 413);
  t.regex(res.body.error, /1024 bytes/);
});

test('a body that is not JSON is a 415', async (t) => {
  const { call } = await startCore(t);
  const res = await call('POST', '/v1/things', { body: 'name=a', type: 'text/plain' });
  t.is(res.status, 415);
  t.truthy(res.body.error);
});

test('an unknown route is a 404 and a wrong method is a 405 with Allow', async (t) => {
  const { call } = await startCore(t);
  const missing = await call('GET', '/v1/nothing');
  t.is(missing.status, 404);
  t.is(typeof missing.body.error, 'string');
  const wrong = await call('DELETE', '/v1/things');
  t.is(wrong.status, 405);
  t.regex(wrong.headers.get('allow') ?? '', /POST/);
  t.is(typeof wrong.body.error, 'string');
});

test('a key without the route scope is refused with 403 naming the scope', async (t) => {
  const { ph, call } = await startCore(t);
  const key = await ph.createKey(ph.owner.projectId, ['emails:send']);
  const res = await call('POST', '/v1/things', { body: JSON.stringify({ name: 'a' }), key });
  t.is(res.status, 403);
  t.regex(res.body.error, /domains:write/);
  const allowed = await ph.createKey(ph.owner.projectId, ['domains:write']);
  t.is((await call('POST', '/v1/things', { body: JSON.stringify({ name: 'a' }), key: allowed })).status, 201);
});

test('over HTTP a missing, invalid or revoked key is a 401 JSON error with WWW-Authenticate', async (t) => {
  const { ph, call } = await startCore(t);
  const missing = await call('GET', '/v1/things/1', { key: null });
  t.is(missing.status, 401);
  t.regex(missing.body.error, /Authorization: Bearer/);
  t.is(missing.headers.get('www-authenticate'), 'Bearer');
  const invalid = await call('GET', '/v1/things/1', { key: `ph_live_${'B'.repeat(32)}` });
  t.is(invalid.status, 401);
  t.deepEqual(invalid.body, { error: 'Invalid API key.' });
  const key = await ph.server.services.keys.create(
    { projectId: ph.owner.projectId, scopes: ['emails:read'], mode: 'live' },
    't',
  );
  t.is((await call('GET', '/v1/things/1', { key: key.key })).status, 200);
  await ph.server.services.keys.revoke(key.view.id, 't');
  const revoked = await call('GET', '/v1/things/1', { key: key.key });
  t.is(revoked.status, 401);
  t.regex(revoked.body.error, /revoked/);
});
