/**
 * Test and live data are apart, as Stripe keeps them: a `ph_test_` key reads, lists and cancels only
 * messages sent with test keys, a `ph_live_` key only live ones, and a message of the other mode
 * answers exactly as one that does not exist.
 */
import test from 'ava';
import type { Posthorn, Response } from '../helpers/server.js';
import { startPosthorn } from '../helpers/server.js';
import { email, rows, verifiedDomain } from './helpers.js';

/** An ID no message has, in the right format. */
const ABSENT = 'msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P';

/** What the API answers for `id` when it does not exist: the answer for ABSENT with the ID put in. */
async function absentAnswer(ph: Posthorn, method: string, path: (id: string) => string, id: string) {
  const res = await ph.request(method, path(ABSENT));
  return { status: res.status, body: JSON.parse(res.text.replaceAll(ABSENT, id)) };
}

const answer = (res: Response) => ({ status: res.status, body: res.body });

async function setup(t: import('ava').ExecutionContext) {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const liveKey = ph.owner.apiKey;
  return { ph, testKey, liveKey };
}

test('GET /v1/emails/{id} shows a test message to test keys only and a live one to live keys only, else 404 as for no message', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const sandboxed = await ph.request('POST', '/v1/emails', { key: testKey, body: email() });
  const live = await ph.request('POST', '/v1/emails', { key: liveKey, body: email() });
  t.is(sandboxed.status, 202, sandboxed.text);
  t.is(live.status, 202, live.text);

  const get = (id: string, key: string) => ph.request('GET', `/v1/emails/${id}`, { key });
  t.like((await get(sandboxed.body.id, testKey)).body, sandboxed.body);
  t.like((await get(live.body.id, liveKey)).body, live.body);
  const path = (id: string) => `/v1/emails/${id}`;
  const liveReadsTest = await get(sandboxed.body.id, liveKey);
  t.deepEqual(answer(liveReadsTest), await absentAnswer(ph, 'GET', path, sandboxed.body.id));
  t.is(liveReadsTest.status, 404);
  const testReadsLive = await get(live.body.id, testKey);
  t.deepEqual(answer(testReadsLive), await absentAnswer(ph, 'GET', path, live.body.id));
  t.is(testReadsLive.status, 404);
});

test('GET /v1/emails lists the calling key’s mode only, paging within it', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const ids = { test: [] as string[], live: [] as string[] };
  for (let i = 0; i < 3; i++) {
    ids.test.push((await ph.request('POST', '/v1/emails', { key: testKey, body: email() })).body.id);
    ids.live.push((await ph.request('POST', '/v1/emails', { key: liveKey, body: email() })).body.id);
  }
  const list = async (key: string, query = '') =>
    (await ph.request('GET', `/v1/emails${query}`, { key })).body as {
      data: { id: string }[];
      has_more: boolean;
    };
  t.deepEqual(
    (await list(testKey)).data.map((m) => m.id),
    [...ids.test].reverse(),
  );
  t.deepEqual(
    (await list(liveKey)).data.map((m) => m.id),
    [...ids.live].reverse(),
  );
  // A page of two ends within the mode: has_more is about the key's own messages.
  const page = await list(testKey, `?limit=2&after=${ids.test[2]}`);
  t.deepEqual(
    page.data.map((m) => m.id),
    [ids.test[1], ids.test[0]],
  );
  t.false(page.has_more);
});

test('DELETE /v1/emails/{id}/schedule cancels a scheduled send of the key’s own mode only; the other mode’s is 404 as for no message and stays scheduled', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const sandboxed = await ph.request('POST', '/v1/emails', { key: testKey, body: email({ send_at: later }) });
  const live = await ph.request('POST', '/v1/emails', { key: liveKey, body: email({ send_at: later }) });
  const path = (id: string) => `/v1/emails/${id}/schedule`;
  const cancel = (id: string, key: string) => ph.request('DELETE', path(id), { key });

  const liveCancelsTest = await cancel(sandboxed.body.id, liveKey);
  t.is(liveCancelsTest.status, 404);
  t.deepEqual(answer(liveCancelsTest), await absentAnswer(ph, 'DELETE', path, sandboxed.body.id));
  const testCancelsLive = await cancel(live.body.id, testKey);
  t.is(testCancelsLive.status, 404);
  t.deepEqual(answer(testCancelsLive), await absentAnswer(ph, 'DELETE', path, live.body.id));
  t.deepEqual(await rows(ph, 'select status from messages order by id'), [
    { status: 'scheduled' },
    { status: 'scheduled' },
  ]);

  t.is((await cancel(sandboxed.body.id, testKey)).status, 204);
  t.is((await cancel(live.body.id, liveKey)).status, 204);
  t.deepEqual(await rows(ph, 'select status from messages order by id'), [
    { status: 'cancelled' },
    { status: 'cancelled' },
  ]);
});
