import test, { type ExecutionContext } from 'ava';
import { openPostgresStore, openStore, type Store } from '../../src/platform/db/database.js';
import { failInserts, query, stopFailingInserts } from '../helpers/sql.js';
import { type Posthorn, startPosthorn } from '../helpers/server.js';
import {
  APPLE_PROXY,
  CHROME,
  clickUrl,
  eventually,
  hits,
  openUrl,
  pipelined,
  sandboxSend,
  trackingEvents,
} from './env.js';

test('the pixel is a 43-byte GIF that is never cached; a browser open is recorded as a person', async (t) => {
  const ph = await startPosthorn(t);
  const id = await sandboxSend(ph);
  const res = await fetch(openUrl(ph, id), { headers: { 'user-agent': CHROME } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/gif');
  t.regex(res.headers.get('cache-control') ?? '', /no-store/);
  t.is(res.headers.get('pragma'), 'no-cache');
  const bytes = Buffer.from(await res.arrayBuffer());
  t.is(bytes.length, 43);
  t.is(bytes.subarray(0, 6).toString('latin1'), 'GIF89a');
  const [event] = await eventually('the open event', async () => {
    const found = await trackingEvents(ph, id);
    return found.length === 1 && found;
  });
  t.like(event, {
    type: 'email.opened',
    recipient: 'owner@example.test',
    data: {
      email_id: id,
      from: 'Posthorn Sandbox <sandbox@posthorn.test>',
      to: ['owner@example.test'],
      subject: 'Hello',
      machine: false,
      machine_reason: null,
      open: { agent_class: 'browser', proxy: null },
    },
  });
  t.deepEqual(await hits(ph, id), [
    {
      kind: 'open',
      link_url: null,
      method: 'GET',
      ip_prefix: '127.0.0.0/24',
      agent_class: 'browser',
      machine: 0,
      machine_reason: null,
      proxy: null,
      recipient: 'owner@example.test',
    },
  ]);
});

test("Apple's proxy agent and a HEAD request are recorded as machines, with their reasons", async (t) => {
  const ph = await startPosthorn(t);
  const id = await sandboxSend(ph);
  t.is((await fetch(openUrl(ph, id), { headers: { 'user-agent': APPLE_PROXY } })).status, 200);
  const head = await fetch(openUrl(ph, id), { method: 'HEAD', headers: { 'user-agent': CHROME } });
  t.is(head.status, 200);
  const events = await eventually('two opens', async () => {
    const found = await trackingEvents(ph, id);
    return found.length === 2 && found;
  });
  t.deepEqual(
    events.map((e) => [e.data.machine, e.data.machine_reason, e.data.open.proxy]),
    [
      [true, 'apple_mpp', 'apple'],
      [true, 'head_request', null],
    ],
  );
});

test('a click redirects at once to the original URL and is recorded; clicks of every link at once are a scanner', async (t) => {
  const ph = await startPosthorn(t);
  const id = await sandboxSend(ph);
  const res = await fetch(clickUrl(ph, id, 'https://acme.test/a?x=1', 0, 2), {
    redirect: 'manual',
    headers: { 'user-agent': CHROME },
  });
  t.is(res.status, 302);
  t.is(res.headers.get('location'), 'https://acme.test/a?x=1');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  const [first] = await eventually('the click', async () => {
    const found = await trackingEvents(ph, id);
    return found.length === 1 && found;
  });
  t.like(first, {
    type: 'email.clicked',
    data: { machine: false, machine_reason: null, click: { link: 'https://acme.test/a?x=1', link_index: 0 } },
  });
  // A second message: both of its links followed in the same moment.
  const other = await sandboxSend(ph);
  const statuses = await pipelined(
    ph.url,
    ['https://acme.test/a', 'https://acme.test/b'].map(
      (url, index) => new URL(clickUrl(ph, other, url, index, 2)).pathname,
    ),
    CHROME,
  );
  t.deepEqual(statuses, ['HTTP/1.1 302 Found', 'HTTP/1.1 302 Found']);
  const scanned = await eventually('two clicks', async () => {
    const found = await trackingEvents(ph, other);
    return found.length === 2 && found;
  });
  t.deepEqual(
    scanned.map((e) => [e.data.machine, e.data.machine_reason]),
    [
      [true, 'all_links_at_once'],
      [true, 'all_links_at_once'],
    ],
  );
});

test('a hit is answered while its write fails, and is written once the store takes writes again', async (t) => {
  const ph = await startPosthorn(t);
  const id = await sandboxSend(ph);
  const store = ph.server.kernel.store;
  // Every write of a hit fails until the trigger goes, as on a full or failing disk.
  await failInserts(store, { name: 'refuse_hits', table: 'tracking_hits', message: 'refused' });
  const open = await fetch(openUrl(ph, id), { headers: { 'user-agent': CHROME } });
  t.is(open.status, 200);
  t.is(Buffer.from(await open.arrayBuffer()).length, 43);
  const click = await fetch(clickUrl(ph, id, 'https://acme.test/a?x=1', 0, 2), {
    redirect: 'manual',
    headers: { 'user-agent': CHROME },
  });
  t.is(click.status, 302);
  t.is(click.headers.get('location'), 'https://acme.test/a?x=1');
  // Past the click's one-second hold, the recorder has tried and failed to write both.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.deepEqual(await hits(ph, id), []);
  await stopFailingInserts(store, 'refuse_hits', 'tracking_hits');
  const written = await eventually('both hits', async () => {
    const found = await hits(ph, id);
    return found.length === 2 && found;
  });
  t.deepEqual(written.map((hit) => hit.kind).sort(), ['click', 'open']);
});

test('a truncated, altered or foreign token is a 404 that redirects nowhere and records nothing', async (t) => {
  const ph = await startPosthorn(t);
  const other = await startPosthorn(t);
  const id = await sandboxSend(ph);
  const good = clickUrl(ph, id, 'https://acme.test/a');
  const token = good.split('/').at(-1) as string;
  const flipped = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
  const foreign = clickUrl(other, id, 'https://evil.test/').split('/').at(-1) as string;
  const openToken = openUrl(ph, id).split('/').at(-1) as string;
  for (const bad of [token.slice(0, -3), flipped, foreign, openToken, 'x', `${token}AA`]) {
    const res = await fetch(`${ph.url}/v1/track/click/${bad}`, { redirect: 'manual' });
    t.is(res.status, 404, bad);
    t.is(res.headers.get('location'), null);
    t.deepEqual(await res.json(), { error: 'This tracking link is not valid.' });
  }
  const foreignOpen = openUrl(other, id).split('/').at(-1) as string;
  for (const bad of [
    openToken.slice(0, -2),
    `${openToken.slice(0, -1)}${openToken.endsWith('A') ? 'B' : 'A'}`,
    foreignOpen,
    token,
  ]) {
    const res = await fetch(`${ph.url}/v1/track/open/${bad}`);
    t.is(res.status, 404, bad);
    t.not(res.headers.get('content-type'), 'image/gif');
  }
  await new Promise((resolve) => setTimeout(resolve, 1300));
  t.deepEqual(await hits(ph, id), []);
  t.deepEqual(await trackingEvents(ph, id), []);
});

/** A store of the test's own on the (stopped) server's database, closed after the test. */
async function reopened(t: ExecutionContext, ph: Posthorn): Promise<Store> {
  const { storage } = ph.config;
  const store =
    storage.engine === 'postgresql'
      ? openPostgresStore({ url: storage.url, password_file: '', pool_size: 1 })
      : openStore(ph.dataDir);
  t.teardown(() => store.close());
  return store;
}

test('a clean stop writes every hit already answered', async (t) => {
  const ph = await startPosthorn(t);
  const id = await sandboxSend(ph);
  const answered = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      fetch(i % 2 === 0 ? openUrl(ph, id) : clickUrl(ph, id, `https://acme.test/${i}`, i, 40), {
        redirect: 'manual',
        headers: { 'user-agent': CHROME },
      }).then((res) => res.status),
    ),
  );
  t.true(answered.every((status) => status === 200 || status === 302));
  await ph.server.stop();
  // What the stopped server left in its store, read through a store of the test's own.
  const after = await reopened(t, ph);
  const count = async (text: string) => Number((await query<{ n: number }>(after, text, id))[0]?.n);
  t.is(await count('select count(*) as n from tracking_hits where message_id = ?'), 40);
  t.is(
    await count(
      `select count(*) as n from events where message_id = ? and type in ('email.opened', 'email.clicked')`,
    ),
    40,
  );
});

test("hits older than the project's retention_days are purged; younger ones and other projects' stay", async (t) => {
  const ph = await startPosthorn(t);
  await ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: true, clicks_enabled: true, retention_days: 2 },
  });
  const id = await sandboxSend(ph);
  const other = await ph.bootstrap('second@example.test');
  const theirs = await ph.request('POST', '/v1/emails', {
    key: other.apiKey,
    body: {
      from: 'Posthorn Sandbox <sandbox@posthorn.test>',
      to: ['second@example.test'],
      subject: 'x',
      html: '<p>x</p>',
    },
  });
  for (const message of [id, id, theirs.body.id as string])
    await fetch(openUrl(ph, message), { headers: { 'user-agent': CHROME } });
  await eventually(
    'three hits',
    async () => (await hits(ph, id)).length === 2 && (await hits(ph, theirs.body.id)).length === 1,
  );
  const store = ph.server.kernel.store;
  const day = 86_400_000;
  // Age them: one of ours 3 days, the other 1 day; theirs 3 days (their default is 30).
  const rows = await query<{ id: number; message_id: string }>(
    store,
    'select id, message_id from tracking_hits order by id',
  );
  const age = (at: number, hit: number | undefined) =>
    query(store, 'update tracking_hits set at = ? where id = ?', at, hit);
  await age(Date.now() - 3 * day, rows[0]?.id);
  await age(Date.now() - 1 * day, rows[1]?.id);
  await age(Date.now() - 3 * day, rows[2]?.id);
  t.is(await ph.server.services.tracking.purgeExpired(), 1);
  t.is((await hits(ph, id)).length, 1);
  t.is((await hits(ph, theirs.body.id)).length, 1);
});
