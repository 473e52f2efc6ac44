import test from 'ava';
import { sendRequest } from '../../src/emails/schemas.js';
import { settled } from '../delivery/env.js';
import type { DeliveryEnv } from '../delivery/env.js';
import { post, startAccountsEnv } from '../accounts/env.js';

const OWNER = 'owner@example.test';

async function session(env: DeliveryEnv, email = OWNER): Promise<string> {
  const users = env.ph.server.services.accounts.users;
  const user = await users.findByEmail(email);
  if (!user) throw new Error(email);
  await users.setPassword(user, 'a long enough password');
  return (await post(env, '/v1/auth/login-password', { email, password: 'a long enough password' })).body
    .token;
}

/** Messages of the owner's project, admitted through the pipeline (no sender rules, as for system mail). */
async function seed(
  env: DeliveryEnv,
  items: { from: string; to: string[]; subject: string }[],
): Promise<string[]> {
  const ids: string[] = [];
  const { domains } = env.ph.server.services;
  // Mail from a domain with keys in the project is signed and sent (verification gates sends, not signing).
  if (!(await domains.signingKeys(env.ph.owner.projectId, 'acme.test')))
    await domains.create(env.ph.owner.projectId, { name: 'acme.test', region: 'eu' });
  for (const item of items) {
    const request = sendRequest.parse({ ...item, text: `Body of ${item.subject}`, tags: { batch: 'seed' } });
    ids.push((await env.ph.server.services.emails.sendSystem(env.ph.owner.projectId, request)).id);
  }
  return ids;
}

const list = (env: DeliveryEnv, token: string, query = '') =>
  env.ph.request('GET', `/v1/dashboard/emails${query}`, { key: token });

test('the history pages, sorts, filters and searches the selected project, and shows a message in detail', async (t) => {
  const env = await startAccountsEnv(t);
  env.peer.dataReply(250, '2.0.0 Ok: queued as 4XyZ9Q1');
  const items = Array.from({ length: 12 }, (_, i) => ({
    from: i % 2 ? 'Billing <billing@acme.test>' : 'Alerts <alerts@acme.test>',
    to: [`user${String(i).padStart(2, '0')}@example.test`],
    subject: `${['Invoice', 'Receipt', 'Welcome'][i % 3]} number ${i}`,
  }));
  const ids = await seed(env, items);
  for (const id of ids) await settled(env.ph, id, 30_000);
  const token = await session(env);

  const first = await list(env, token, '?page_size=10');
  t.is(first.status, 200, first.text);
  t.is(first.body.total, 12);
  t.is(first.body.total_pages, 2);
  t.is(first.body.page, 1);
  t.is(first.body.page_size, 10);
  t.is(first.body.sort, 'created_at');
  t.is(first.body.order, 'desc');
  t.deepEqual(
    first.body.data.map((m: { id: string }) => m.id),
    [...ids].reverse().slice(0, 10),
  );
  t.deepEqual(first.body.data[0], {
    id: ids[11],
    from: 'Billing <billing@acme.test>',
    to: ['user11@example.test'],
    subject: 'Welcome number 11',
    status: 'delivered',
    created_at: first.body.data[0].created_at,
  });
  const second = await list(env, token, '?page_size=10&page=2');
  t.deepEqual(
    second.body.data.map((m: { id: string }) => m.id),
    [ids[1], ids[0]],
  );

  const bySubject = await list(env, token, '?sort=subject&order=asc&page_size=100');
  const subjects = bySubject.body.data.map((m: { subject: string }) => m.subject);
  t.deepEqual(subjects, [...subjects].sort());
  const byRecipient = await list(env, token, '?sort=recipient&order=desc');
  t.is(byRecipient.body.data[0].to[0], 'user11@example.test');
  const byFrom = await list(env, token, '?sort=from&order=asc&page_size=100');
  t.is(byFrom.body.data[0].from, 'Alerts <alerts@acme.test>');
  t.is(byFrom.body.data[11].from, 'Billing <billing@acme.test>');
  t.is((await list(env, token, '?sort=status')).status, 200);

  const recipient = await list(env, token, '?search=USER07@example');
  t.deepEqual(
    recipient.body.data.map((m: { id: string }) => m.id),
    [ids[7]],
  );
  t.is(recipient.body.total, 1);
  const exact = await list(env, token, '?search=User07@Example.test');
  t.deepEqual(
    exact.body.data.map((m: { id: string }) => m.id),
    [ids[7]],
    'a whole address matches exactly, any case',
  );
  t.is((await list(env, token, '?search=billing@acme.test')).body.total, 6, 'a whole sender address');
  const subject = await list(env, token, '?search=receipt');
  t.is(subject.body.total, 4);
  const sender = await list(env, token, '?search=billing@acme');
  t.is(sender.body.total, 6);
  const byId = await list(env, token, `?search=${ids[3]}`);
  t.deepEqual(
    byId.body.data.map((m: { id: string }) => m.id),
    [ids[3]],
  );
  t.is((await list(env, token, '?search=nothing-like-this')).body.total, 0);
  // "11" is in message 11's subject and address, and by chance in the random IDs of some others.
  const with11 = ids.filter((id, i) => i === 11 || id.toLowerCase().includes('11')).length;
  t.is((await list(env, token, '?search=11')).body.total, with11, 'a two-character search');
  t.is((await list(env, token, '?status=delivered')).body.total, 12);
  t.is((await list(env, token, '?status=bounced')).body.total, 0);
  t.is((await list(env, token, '?status=delivered&search=welcome&page_size=10')).body.total, 4);

  const detail = await env.ph.request('GET', `/v1/dashboard/emails/${ids[5]}`, { key: token });
  t.is(detail.status, 200, detail.text);
  t.like(detail.body, {
    id: ids[5],
    from: 'Billing <billing@acme.test>',
    subject: 'Welcome number 5',
    status: 'delivered',
    channel: 'transactional',
    reply_to: [],
    headers: {},
    tags: { batch: 'seed' },
    attachments: [],
    text: 'Body of Welcome number 5',
  });
  t.deepEqual(detail.body.recipients, [
    { email: 'user05@example.test', type: 'to', status: 'delivered', mta_queue_id: '4XyZ9Q1' },
  ]);
  for (const field of ['created_at', 'updated_at']) t.false(Number.isNaN(Date.parse(detail.body[field])));
});

test('a page lists every message even when the index fell far behind while a broadcast was delivered', async (t) => {
  const env = await startAccountsEnv(t, { broadcasts: { views_lag_max: '10m' } });
  const { bulk } = env.ph.server.services;
  // As delivery does while it holds marketing jobs: the indexer's timer waits (up to 10 minutes here).
  bulk.mark();
  const marking = setInterval(() => bulk.mark(), 50);
  t.teardown(() => clearInterval(marking));
  const count = 450; // more than two of the indexer's batches
  const items = Array.from({ length: count }, (_, i) => ({
    from: 'News <news@acme.test>',
    to: [`reader${i}@example.test`],
    subject: `Issue ${i}`,
  }));
  const ids = await seed(env, items);
  const token = await session(env);
  const page = await list(env, token, '?page_size=10');
  t.is(page.status, 200, page.text);
  t.is(page.body.total, count);
  t.is(page.body.data[0].id, ids[count - 1]);
  const found = await list(env, token, '?search=Issue%20449');
  t.deepEqual(
    found.body.data.map((m: { id: string }) => m.id),
    [ids[449]],
  );
});

test("another project's messages are a 404, and the project header selects a project of the organization", async (t) => {
  const env = await startAccountsEnv(t);
  const [own] = await seed(env, [{ from: 'a@acme.test', to: ['x@example.test'], subject: 'Mine' }]);
  const other = await env.ph.bootstrap('else@elsewhere.test');
  const request = sendRequest.parse({
    from: 'b@acme.test',
    to: ['y@example.test'],
    subject: 'Theirs',
    text: 'x',
  });
  const theirs = (await env.ph.server.services.emails.sendSystem(other.projectId, request)).id;
  const token = await session(env);
  t.is((await env.ph.request('GET', `/v1/dashboard/emails/${own}`, { key: token })).status, 200);
  t.is((await env.ph.request('GET', `/v1/dashboard/emails/${theirs}`, { key: token })).status, 404);
  const searched = await list(env, token, '?search=Theirs');
  t.is(searched.body.total, 0);
  const foreign = await env.ph.request('GET', '/v1/dashboard/emails', {
    key: token,
    headers: { 'X-Posthorn-Project-ID': other.projectId },
  });
  t.is(foreign.status, 404);
});

test('every history parameter is validated with a 400 naming it', async (t) => {
  const env = await startAccountsEnv(t);
  const token = await session(env);
  for (const [query, field] of [
    ['?page_size=9', 'page_size'],
    ['?page_size=101', 'page_size'],
    ['?page=0', 'page'],
    ['?page=x', 'page'],
    [`?search=${'a'.repeat(201)}`, 'search'],
    ['?sort=size', 'sort'],
    ['?order=up', 'order'],
    ['?status=lost', 'status'],
    ['?colour=blue', 'colour'],
  ]) {
    const res = await list(env, token, query);
    t.is(res.status, 400, query);
    t.is(res.body.details[0].path, field, `${query}: ${res.text}`);
  }
  t.is((await list(env, token, `?search=${'a'.repeat(200)}&page_size=10`)).status, 200);
  t.is((await list(env, token, '?page_size=100')).status, 200);
});
