/**
 * Webhook endpoints have a mode, as Stripe's test-mode and live-mode endpoints: an endpoint takes
 * the mode of the key that created it, receives the events of that mode's messages (and events
 * about no message, such as `domain.created`), and only keys of its mode see it.
 */
import test from 'ava';
import { startDeliveryEnv } from '../delivery/env.js';
import { email, verifiedDomain } from '../emails/helpers.js';
import type { Posthorn } from '../helpers/server.js';
import { startPosthorn } from '../helpers/server.js';
import { createEndpoint } from './helpers.js';
import { eventually, type Receiver, startReceiver } from './receiver.js';

const open = { allow_http: true, allow_private_targets: true };
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

async function setup(t: import('ava').ExecutionContext) {
  const ph = await startPosthorn(t, { webhooks: open });
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const liveKey = ph.owner.apiKey;
  return { ph, testKey, liveKey };
}

/** Type and message (`email_id`, absent for a domain event) of each event a receiver got. */
const got = (receiver: Receiver) =>
  receiver.received
    .map((r) => JSON.parse(r.body) as { type: string; data: { email_id?: string } })
    .map((e) => `${e.type} ${e.data.email_id ?? '-'}`)
    .sort();

async function send(ph: Posthorn, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await ph.request('POST', '/v1/emails', { key, body });
  if (res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.id;
}

test('a test send’s events reach the test endpoint only, a live send’s the live endpoint only, and a domain event both', async (t) => {
  // The delivery engine runs, so the test send goes through the whole pipeline into the sink.
  const { ph } = await startDeliveryEnv(t, { config: { webhooks: open } });
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const liveKey = ph.owner.apiKey;
  const testHook = await startReceiver(t);
  const liveHook = await startReceiver(t);
  const testEndpoint = await createEndpoint(ph, testHook.url, ['*'], testKey);
  const liveEndpoint = await createEndpoint(ph, liveHook.url, ['*'], liveKey);

  // The live send is scheduled: it stays put, and its one event says so.
  const sandboxed = await send(ph, testKey, email());
  const live = await send(ph, liveKey, email({ send_at: new Date(Date.now() + 3_600_000).toISOString() }));
  const domain = await ph.request('POST', '/v1/domains', { key: liveKey, body: { name: 'other.test' } });
  t.is(domain.status, 201, domain.text);

  await eventually(async () => (got(testHook).length >= 3 && got(liveHook).length >= 2 ? true : undefined));
  await settle();
  t.deepEqual(got(testHook), ['domain.created -', `email.delivered ${sandboxed}`, `email.sent ${sandboxed}`]);
  t.deepEqual(got(liveHook), ['domain.created -', `email.scheduled ${live}`]);

  const logged = async (id: string, key: string) =>
    (await ph.request('GET', `/v1/webhooks/${id}/deliveries`, { key })).body.data.length;
  t.is(await logged(testEndpoint.id, testKey), 3);
  t.is(await logged(liveEndpoint.id, liveKey), 2);
});

test('scheduled sends of both modes: each endpoint hears of its own mode’s send only', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const testHook = await startReceiver(t);
  const liveHook = await startReceiver(t);
  await createEndpoint(ph, testHook.url, ['email.scheduled'], testKey);
  await createEndpoint(ph, liveHook.url, ['email.scheduled'], liveKey);
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const live = await send(ph, liveKey, email({ send_at: at }));
  const sandboxed = await send(ph, testKey, email({ send_at: at }));
  await testHook.waitFor(1);
  await liveHook.waitFor(1);
  await settle();
  t.deepEqual(got(testHook), [`email.scheduled ${sandboxed}`]);
  t.deepEqual(got(liveHook), [`email.scheduled ${live}`]);
});

test('an endpoint takes the mode of the key that created it, and the other mode’s keys find it absent', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const hook = await startReceiver(t);
  const created = await ph.request('POST', '/v1/webhooks', {
    key: testKey,
    body: { url: hook.url, events: ['*'] },
  });
  t.is(created.status, 201, created.text);
  t.is(created.body.mode, 'test');
  const liveOne = await createEndpoint(ph, hook.url, ['*'], liveKey);
  const id: string = created.body.id;

  const list = async (key: string) =>
    ((await ph.request('GET', '/v1/webhooks', { key })).body.data as { id: string; mode: string }[]).map(
      (e) => `${e.id} ${e.mode}`,
    );
  t.deepEqual(await list(testKey), [`${id} test`]);
  t.deepEqual(await list(liveKey), [`${liveOne.id} live`]);
  t.is((await ph.request('GET', `/v1/webhooks/${id}`, { key: testKey })).body.mode, 'test');

  // Every route answers for the other mode's endpoint exactly as for one that does not exist.
  const absent = 'wh_01JD3Q8Z9V6W1R2T3Y4U5I6O7P';
  const routes: [string, (endpoint: string) => string, Record<string, unknown>?][] = [
    ['GET', (e) => `/v1/webhooks/${e}`],
    ['PATCH', (e) => `/v1/webhooks/${e}`, { description: 'mine now' }],
    ['POST', (e) => `/v1/webhooks/${e}/rotate-secret`],
    ['GET', (e) => `/v1/webhooks/${e}/deliveries`],
    ['GET', (e) => `/v1/webhooks/${e}/deliveries/whd_01JD3Q8Z9V6W1R2T3Y4U5I6O7P`],
    ['POST', (e) => `/v1/webhooks/${e}/deliveries/whd_01JD3Q8Z9V6W1R2T3Y4U5I6O7P/replay`],
    ['DELETE', (e) => `/v1/webhooks/${e}`],
  ];
  for (const [method, path, body] of routes) {
    const options = body ? { key: liveKey, body } : { key: liveKey };
    const other = await ph.request(method, path(id), options);
    const none = await ph.request(method, path(absent), options);
    t.is(other.status, 404, `${method} ${path(id)}: ${other.text}`);
    t.is(other.text.replaceAll(id, absent), none.text, `${method} ${path(id)}`);
  }
  // The live key's DELETE left it: the test key still has it, unchanged.
  const still = await ph.request('GET', `/v1/webhooks/${id}`, { key: testKey });
  t.is(still.status, 200);
  t.is(still.body.description, null);
  t.is((await ph.request('DELETE', `/v1/webhooks/${id}`, { key: testKey })).status, 204);
});

test('an event about a message the emails capability does not know reaches live endpoints only, and replays there', async (t) => {
  const { ph, testKey, liveKey } = await setup(t);
  const testHook = await startReceiver(t);
  const liveHook = await startReceiver(t);
  await createEndpoint(ph, testHook.url, ['email.delivered', 'domain.deleted'], testKey);
  const liveEndpoint = await createEndpoint(ph, liveHook.url, ['email.delivered', 'domain.deleted'], liveKey);
  const { events } = ph.server.services;
  const unknown = 'msg_0000000000UNKNOWNMESSAGE';
  await ph.server.kernel.db.transaction().execute(async (trx) => {
    await events.append(trx, {
      projectId: ph.owner.projectId,
      type: 'email.delivered',
      messageId: unknown,
      data: { email_id: unknown },
    });
    // A marker both endpoints receive: once it arrived, the event before it was fanned out too.
    await events.append(trx, {
      projectId: ph.owner.projectId,
      type: 'domain.deleted',
      data: { id: 'dom_x' },
    });
  });
  events.notify();
  await eventually(async () => (got(testHook).length >= 1 && got(liveHook).length >= 2 ? true : undefined));
  await settle();
  t.deepEqual(got(liveHook), ['domain.deleted -', `email.delivered ${unknown}`]);
  t.deepEqual(got(testHook), ['domain.deleted -']);

  const logged = (await ph.request('GET', `/v1/webhooks/${liveEndpoint.id}/deliveries`, { key: liveKey }))
    .body.data as Array<{ id: string; event_type: string }>;
  const delivery = logged.find((d) => d.event_type === 'email.delivered');
  const replay = await ph.request(
    'POST',
    `/v1/webhooks/${liveEndpoint.id}/deliveries/${delivery?.id}/replay`,
    { key: liveKey },
  );
  t.true(replay.status < 300, replay.text);
});
