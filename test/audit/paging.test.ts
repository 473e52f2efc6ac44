/**
 * The audit log in pages (the dashboard's long list): `after` continues below the last record of a
 * page, `has_more` says when older ones remain, and `action` keeps the records whose action starts
 * with it. Records are made by real requests to the real server; runs on both engines.
 */
import test from 'ava';
import { signIn } from '../oauth/env.js';
import { startPosthorn } from '../helpers/server.js';

interface Row {
  id: string;
  action: string;
}

test('the audit log pages with after and has_more, and filters by the start of the action', async (t) => {
  const ph = await startPosthorn(t);
  const session = await signIn(ph);
  for (const name of ['one', 'two', 'three', 'four', 'five']) {
    const res = await ph.request('POST', '/v1/dashboard/api-keys', {
      key: session,
      body: { name, scopes: ['emails:send'] },
    });
    t.is(res.status, 201, res.text);
  }
  const suppressed = await ph.request('POST', '/v1/suppressions', {
    body: { email: 'gone@example.net', reason: 'manual_block' },
  });
  t.is(suppressed.status, 201, suppressed.text);
  const log = (query: string) => ph.request('GET', `/v1/dashboard/audit-logs${query}`, { key: session });

  const whole = await log('?limit=500');
  t.is(whole.status, 200, whole.text);
  t.false(whole.body.has_more);
  const all = (whole.body.data as Row[]).map((r) => r.id);
  t.true(all.length >= 7, 'the sign-in, five keys and a suppression');

  const seen: string[] = [];
  let after = '';
  for (let pages = 0; pages < 10; pages++) {
    const page = await log(`?limit=2${after ? `&after=${after}` : ''}`);
    t.is(page.status, 200, page.text);
    const ids = (page.body.data as Row[]).map((r) => r.id);
    seen.push(...ids);
    if (!page.body.has_more) break;
    t.is(ids.length, 2, 'a page with more after it is full');
    after = ids[1] as string;
  }
  t.deepEqual(seen, all, 'the pages together are the whole log, newest first, each record once');

  const keys = await log('?action=api_key.');
  const expected = (whole.body.data as Row[]).filter((r) => r.action.startsWith('api_key.'));
  t.true(expected.length >= 5, 'the five keys made here at least');
  t.deepEqual(keys.body.data, expected, 'the api_key. records of the whole log, in its order');
  const firstTwo = await log('?action=api_key.&limit=2');
  t.true(firstTwo.body.has_more);
  const rest = await log(`?action=api_key.&limit=100&after=${firstTwo.body.data[1].id}`);
  t.deepEqual(
    [...firstTwo.body.data, ...rest.body.data].map((r: Row) => r.id),
    expected.map((r) => r.id),
  );
  t.false(rest.body.has_more);
  const posts = await log(`?action=${encodeURIComponent('POST /v1/suppressions')}`);
  t.deepEqual(
    (posts.body.data as Row[]).map((r) => r.action),
    ['POST /v1/suppressions'],
  );
  t.deepEqual((await log('?action=API_KEY.')).body.data, [], 'the match is exact, case included');
  t.deepEqual((await log('?action=%25')).body.data, [], 'a % is a character, not a wildcard');
  t.deepEqual((await log('?after=aud_log_unknown')).body, { data: [], has_more: false });
  const tooLong = await log(`?action=${'a'.repeat(201)}`);
  t.is(tooLong.status, 400);
  t.is(tooLong.body.details[0].path, 'action');
});
