/**
 * DESIGN.md §4a as a user of test keys meets it: a sandbox project's test key may send to the
 * reserved test recipients, suppressions are kept per mode, the reserved addresses are never
 * suppressed, and test sends never use up what live sends may send.
 */
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { SANDBOX } from './helpers.js';

const OWNER = 'owner@example.test';

test("a sandbox project's test key sends to the reserved test recipients; any other outsider is refused as for a live key", async (t) => {
  const ph = await startPosthorn(t);
  const testKey = await ph.createKey(ph.owner.projectId, ['emails:send'], 'test');
  const send = (to: string[], key?: string) =>
    ph.request('POST', '/v1/emails', { key, body: { from: SANDBOX, to, subject: 'Hi', text: 'Hello' } });

  const reserved = await send(
    ['bounce@posthorn.test', 'complaint@posthorn.test', 'delay@posthorn.test', OWNER],
    testKey,
  );
  t.is(reserved.status, 202, reserved.text);
  const outsider = await send(['bounce@posthorn.test', 'stranger@example.com'], testKey);
  t.is(outsider.status, 403);
  t.regex(outsider.body.error, /stranger@example\.com is not one/);
  const other = await send(['other@posthorn.test'], testKey);
  t.is(other.status, 403, 'only the three reserved local parts');
  const live = await send(['bounce@posthorn.test']);
  t.is(live.status, 403, 'a live key keeps the sandbox rule for them too');
});

test('a suppression added with a test key applies to test sends only, and one added with a live key to live sends only', async (t) => {
  const ph = await startPosthorn(t);
  const testKey = await ph.createKey(
    ph.owner.projectId,
    ['emails:send', 'suppressions:read', 'suppressions:write'],
    'test',
  );
  const send = (key?: string) =>
    ph.request('POST', '/v1/emails', {
      key,
      body: { from: SANDBOX, to: [OWNER], subject: 'Hi', text: 'Hello' },
    });

  t.is(
    (
      await ph.request('POST', '/v1/suppressions', {
        key: testKey,
        body: { email: OWNER, reason: 'manual_block' },
      })
    ).status,
    201,
  );
  t.is((await send(testKey)).status, 422, 'the test list holds it');
  t.is((await send()).status, 202, 'the live list does not');
  t.is((await ph.request('GET', `/v1/suppressions/${OWNER}`)).status, 404);
  t.is((await ph.request('GET', `/v1/suppressions/${OWNER}`, { key: testKey })).status, 200);
  t.deepEqual((await ph.request('GET', '/v1/suppressions')).body.data, []);

  t.is(
    (await ph.request('POST', '/v1/suppressions', { body: { email: OWNER, reason: 'unsubscribe' } })).status,
    201,
  );
  t.is((await send()).status, 422);
  t.is((await ph.request('DELETE', `/v1/suppressions/${OWNER}`, { key: testKey })).status, 204);
  t.is((await send(testKey)).status, 202, 'removing it from the test list leaves the live one');
  t.is((await send()).status, 422);
});

test('the reserved test recipients can never be suppressed through the API', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('POST', '/v1/suppressions', {
    body: { email: 'Bounce@Posthorn.test', reason: 'manual_block' },
  });
  t.is(res.status, 400);
  t.regex(res.body.error, /reserved test recipient of posthorn\.test, which is never suppressed/);
  t.deepEqual(res.body.details, [
    { path: 'email', message: 'is a reserved test recipient of posthorn.test, which is never suppressed' },
  ]);
});

test("test sends to an address never use up the live sends' hourly budget for it", async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_hour_per_recipient: 2 } });
  const testKey = await ph.createKey(ph.owner.projectId, ['emails:send'], 'test');
  const send = (to: string, key?: string) =>
    ph.request('POST', '/v1/emails', {
      key,
      body: { from: SANDBOX, to: [to], subject: 'Hi', text: 'Hello' },
    });
  for (let i = 0; i < 2; i++) t.is((await send(OWNER, testKey)).status, 202);
  t.is((await send(OWNER, testKey)).status, 429, 'the test sends have a budget of their own');
  for (let i = 0; i < 2; i++) t.is((await send(OWNER)).status, 202, 'the live budget is untouched');
  t.is((await send(OWNER)).status, 429);
  for (let i = 0; i < 5; i++)
    t.is((await send('delay@posthorn.test', testKey)).status, 202, 'reserved: every time');
});
