import test from 'ava';
import { mx, startDeliveryEnv } from '../delivery/env.js';

const link = (data: Buffer, kind: 'verify' | 'unsubscribe') => {
  const text = data.toString('utf8').replace(/=\r\n/g, '');
  const match = new RegExp(`/v1/status/subscriptions/${kind}/(ph[a-z]{2}_[A-Za-z0-9_-]{43})`).exec(text);
  if (!match) throw new Error(`no ${kind} link in:\n${text}`);
  return `/v1/status/subscriptions/${kind}/${match[1]}`;
};

test('an email subscriber gets a verification link by mail, is notified of an incident with RFC 8058 headers, and unsubscribes in one click', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: {
      system_mail: { from: 'Acme Status <status@acme.test>' },
      // RFC 8058 one-click needs an https unsubscribe link.
      server: { public_url: 'https://status.acme.test' },
      status: { check_interval: '100ms', title: 'Acme Mail' },
    },
  });
  mx(env.dns, 'subscriber.test', [{ host: 'mx.subscriber.test', ip: '127.0.0.1' }]);
  const created = await env.ph.request('POST', '/v1/status/subscriptions', {
    key: null,
    body: { channel: 'email', destination: 'Ann@Subscriber.test' },
  });
  t.is(created.status, 201, created.text);
  t.is(created.body.state, 'pending');
  const [verification] = await env.peer.waitFor(1, 20_000);
  t.deepEqual(verification?.rcptTo, ['ann@subscriber.test']);
  t.regex(
    verification?.data.toString() ?? '',
    /Subject: Confirm your subscription to Acme Mail status updates/,
  );
  const verify = link(verification?.data as Buffer, 'verify');
  const verified = await env.ph.request('GET', verify, { key: null });
  t.is(verified.status, 200);
  t.is(verified.body.state, 'verified');
  t.is((await env.ph.request('GET', verify, { key: null })).status, 404, 'a verification token works once');

  await env.ph.server.services.status.incidents.open({
    title: 'Delayed delivery',
    components: ['delivery'],
    impact: 'degraded',
    message: 'Some mail is late.',
  });
  const received = await env.peer.waitFor(2, 20_000);
  // Header lines unfolded (RFC 5322 §2.2.3).
  const notice = (received[1]?.data.toString('utf8') ?? '').replace(/\r\n[ \t]+/g, ' ');
  t.regex(notice, /Subject: \[Acme Mail status\] Investigating: Delayed delivery/);
  t.regex(notice, /Some mail is late\./);
  t.regex(
    notice,
    /List-Unsubscribe:\s+<https:\/\/status\.acme\.test\/v1\/status\/subscriptions\/unsubscribe\/phsu_/,
  );
  t.regex(notice, /List-Unsubscribe-Post:\s+List-Unsubscribe=One-Click/);
  const unsubscribe = link(received[1]?.data as Buffer, 'unsubscribe');
  const removed = await env.ph.request('POST', unsubscribe, {
    key: null,
    rawBody: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(removed.status, 200, removed.text);
  t.is(removed.body.state, 'removed');
  await env.ph.server.services.status.incidents.open({
    title: 'Again',
    components: ['api'],
    impact: 'degraded',
    message: 'x',
  });
  await env.ph.server.services.status.settle();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.is((await env.peer.waitFor(2)).length, 2, 'a removed subscriber is mailed nothing more');
});
