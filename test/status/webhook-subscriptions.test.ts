import test, { type ExecutionContext } from 'ava';
import { startDnsServer } from '../helpers/dns-server.js';
import { startPosthorn } from '../helpers/server.js';
import { eventually } from './helpers.js';
import { type Received, startHttpsSubscriber, validSignature } from './https-subscriber.js';

const HOST = 'hooks.subscriber.test';

async function world(t: ExecutionContext) {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  dns.set(HOST, 'A', ['127.0.0.1']);
  const subscriber = await startHttpsSubscriber(t, HOST);
  const ph = await startPosthorn(t, {
    dns: { servers: [dns.address], timeout_ms: 1000 },
    webhooks: { allow_private_targets: true, tls_ca_file: subscriber.caFile, timeout: '3s' },
    status: { check_interval: '100ms', retry_schedule: ['300ms', '300ms', '300ms'] },
  });
  return { ph, subscriber, url: `https://${HOST}:${subscriber.port}/status-hook` };
}

const notices = (received: readonly Received[]) =>
  received.filter((r) => r.json?.type?.startsWith('status.incident.'));

test('a webhook subscriber over HTTPS is verified by echoing the challenge, then receives each incident change once, signed', async (t) => {
  const { ph, subscriber, url } = await world(t);
  const created = await ph.request('POST', '/v1/status/subscriptions', {
    key: null,
    body: { channel: 'webhook', destination: url },
  });
  t.is(created.status, 201, created.text);
  t.is(created.body.state, 'pending');
  t.regex(created.body.id, /^sub_/);
  t.regex(created.body.secret, /^whsec_/);
  const secret = created.body.secret as string;

  await subscriber.waitFor((r) => r.length >= 1, 'the challenge');
  const challenge = subscriber.received[0] as Received;
  t.is(challenge.json.type, 'status.subscription.challenge');
  t.is(challenge.json.data.subscription_id, created.body.id);
  t.regex(challenge.json.data.challenge, /^[A-Za-z0-9_-]{43}$/);
  t.true(validSignature(challenge, secret), 'the challenge is signed with the subscription secret');

  const verified = await eventually(async () => {
    const again = await ph.request('POST', '/v1/status/subscriptions', {
      key: null,
      body: { channel: 'webhook', destination: url },
    });
    return again.body.state === 'verified' ? again : undefined;
  }, 'the subscription verified');
  t.is(verified.status, 201);
  t.is(verified.body.id, created.body.id, 'a repeated subscription is the same one');
  t.is(verified.body.secret, undefined, 'the secret is shown once');

  // The first notice fails once: it is retried under the same webhook-id.
  let failed = false;
  subscriber.answer((request) => {
    if (request.json?.type === 'status.incident.created' && !failed) {
      failed = true;
      return { status: 503 };
    }
    return { status: 204 };
  });
  const incidents = ph.server.services.status.incidents;
  const opened = await incidents.open({
    title: 'Slow webhooks',
    components: ['webhooks'],
    impact: 'degraded',
    message: 'Deliveries are late.',
  });
  await incidents.resolve(opened.incident.id, 'Back to normal.');
  await subscriber.waitFor((r) => notices(r).length >= 3, 'two notices, one of them retried');
  const got = notices(subscriber.received);
  t.deepEqual(
    got.map((r) => r.json.type),
    ['status.incident.created', 'status.incident.created', 'status.incident.resolved'],
  );
  t.is(got[0]?.headers['webhook-id'], got[1]?.headers['webhook-id'], 'a retry keeps its webhook-id');
  t.is(got[0]?.body, got[1]?.body, 'a retry sends the same body');
  for (const r of got) t.true(validSignature(r, secret));
  const notice = got[2]?.json;
  t.is(notice.data.incident.id, opened.incident.id);
  t.is(notice.data.incident.state, 'resolved');
  t.is(notice.data.update.message, 'Back to normal.');
  t.regex(notice.data.unsubscribe_url, /\/v1\/status\/subscriptions\/unsubscribe\/phsu_/);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.is(notices(subscriber.received).length, 3, 'each change reaches the subscriber once');

  const path = new URL(notice.data.unsubscribe_url).pathname;
  const removed = await ph.request('GET', path, { key: null });
  t.is(removed.status, 200);
  t.is(removed.body.state, 'removed');
  const reused = await ph.request('GET', path, { key: null });
  t.is(reused.status, 404, 'a used unsubscribe token is unknown');
  await incidents.open({ title: 'Another', components: ['api'], impact: 'degraded', message: 'x' });
  await ph.server.services.status.settle();
  await new Promise((resolve) => setTimeout(resolve, 800));
  t.is(notices(subscriber.received).length, 3, 'a removed subscriber hears nothing more');
});

test('a webhook endpoint that does not echo the challenge stays pending, is tried again, and is never notified', async (t) => {
  const { ph, subscriber, url } = await world(t);
  subscriber.answer(() => ({
    status: 200,
    body: '{"ok":true}',
    headers: { 'content-type': 'application/json' },
  }));
  const created = await ph.request('POST', '/v1/status/subscriptions', {
    key: null,
    body: { channel: 'webhook', destination: url },
  });
  t.is(created.status, 201);
  await subscriber.waitFor((r) => r.length >= 3, 'the challenge tried again');
  const challenges = new Set(subscriber.received.map((r) => r.json.data.challenge));
  t.is(challenges.size, subscriber.received.length, 'each try carries a fresh challenge');
  await ph.server.services.status.incidents.open({
    title: 'X',
    components: ['api'],
    impact: 'degraded',
    message: 'x',
  });
  await ph.server.services.status.settle();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.is(notices(subscriber.received).length, 0, 'a pending subscriber is never notified');
  const again = await ph.request('POST', '/v1/status/subscriptions', {
    key: null,
    body: { channel: 'webhook', destination: url },
  });
  t.is(again.body.state, 'pending');
});
