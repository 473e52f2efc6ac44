/**
 * The reputation center from Posthorn's own events: mail delivered to a real SMTP server on
 * loopback (playing Gmail's MX), some of it refused as a bad mailbox, blocked for reputation or
 * rate-limited; rates, states and the blocked lane as `GET /v1/reputation` shows them.
 */
import test from 'ava';
import { eventually, messageStatus, mx, send, startDeliveryEnv } from '../delivery/env.js';

const GMAIL_MX = 'gmail-smtp-in.l.google.com';
const BLOCK =
  '5.7.1 Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam sent to Gmail, this message has been blocked.';
const RATE =
  '4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.';

async function reputation(env: Awaited<ReturnType<typeof startDeliveryEnv>>, key?: string) {
  const res = await env.ph.request('GET', '/v1/reputation', key ? { key } : {});
  if (res.status !== 200) throw new Error(`GET /v1/reputation: ${res.status} ${res.text}`);
  return res.body;
}

/** A complaint event as the inbound listener appends it for an ARF report: no lane in it. */
async function appendComplaint(
  env: Awaited<ReturnType<typeof startDeliveryEnv>>,
  id: string,
  to: string[],
  recipient: string,
) {
  const { services, kernel } = env.ph.server;
  await kernel.db.transaction().execute(async (trx) => {
    await services.events.append(trx, {
      projectId: env.ph.owner.projectId,
      type: 'email.complained',
      messageId: id,
      recipient,
      data: {
        email_id: id,
        from: 'Acme <hello@acme.test>',
        to,
        subject: 'Hello',
        tags: {},
        complaint: { recipient, feedback_type: 'abuse', source: 'arf' },
      },
    });
  });
  services.events.notify();
}

test('bounces, blocks and rate limits at a provider show as rates, states and a blocked lane', async (t) => {
  const env = await startDeliveryEnv(t, { config: { reputation: { min_volume: 0 } } });
  mx(env.dns, 'gmail.test', [{ host: GMAIL_MX, ip: '127.0.0.1' }]);
  env.peer.rcptReply(
    'gone@gmail.test',
    550,
    '5.1.1 The email account that you tried to reach does not exist.',
  );
  env.peer.rcptReply('blocked@gmail.test', 550, BLOCK);
  env.peer.rcptReply('slow@gmail.test', 451, RATE, { times: 1 });
  const fine = Array.from({ length: 8 }, (_, i) => `user${i}@gmail.test`);
  const id = await send(env, { to: [...fine, 'gone@gmail.test', 'blocked@gmail.test', 'slow@gmail.test'] });
  await eventually('the retry of slow@', () => messageStatus(env.ph, id) === 'partially_delivered', 30_000);

  const body = await reputation(env);
  t.is(body.state, 'at_risk');
  t.deepEqual(body.thresholds, {
    bounce_rate: { warning: 0.02, at_risk: 0.05 },
    complaint_rate: { warning: 0.001, at_risk: 0.003 },
    min_volume: 0,
  });
  const [domain] = body.domains;
  t.is(domain.name, 'acme.test');
  t.deepEqual(
    domain.windows.map((w: { days: number }) => w.days),
    [1, 7, 30],
  );
  t.like(domain.windows[0], {
    delivered: 9,
    bounced: 2,
    hard_bounced: 1,
    deferred: 1,
    blocked: 2,
    complained: 0,
    low_volume: false,
    state: 'at_risk',
  });
  t.is(domain.windows[0].bounce_rate, 1 / 11);
  t.is(domain.state, 'at_risk');
  t.regex(domain.reasons[0], /bounce rate 9\.09 % over 1 d is at or above 5 %/);

  const lane = body.lanes.find((l: { name: string }) => l.name === 'gmail');
  t.truthy(lane, JSON.stringify(body.lanes));
  t.is(lane.windows[2].blocked, 2);
  t.true(lane.reasons.some((r: string) => /reputation block or rate limit in the last day/.test(r)));
  t.is(body.blocked_lanes.length, 1);
  t.like(body.blocked_lanes[0], { lane: 'gmail', blocked_1d: 2, blocked_7d: 2 });
  t.true(['spam_block', 'rate_limited'].includes(body.blocked_lanes[0].last_block.category));
  t.is(body.blocked_lanes[0].last_block.mx_host, GMAIL_MX);
});

test('complaints count against the lane that carried the message, and a few of them put a domain at risk', async (t) => {
  const env = await startDeliveryEnv(t, { config: { reputation: { min_volume: 0 } } });
  mx(env.dns, 'gmail.test', [{ host: GMAIL_MX, ip: '127.0.0.1' }]);
  const to = Array.from({ length: 20 }, (_, i) => `reader${i}@gmail.test`);
  const id = await send(env, { to });
  await eventually('delivery', () => messageStatus(env.ph, id) === 'delivered', 30_000);
  await env.ph.server.services.analytics.catchUp();
  await appendComplaint(env, id, to, 'reader3@gmail.test');

  const body = await reputation(env);
  const lane = body.lanes.find((l: { name: string }) => l.name === 'gmail');
  t.is(lane.windows[0].complained, 1, JSON.stringify(body.lanes));
  t.is(lane.windows[0].complaint_rate, 1 / 20);
  t.is(body.domains[0].state, 'at_risk');
  t.regex(body.domains[0].reasons.join(' '), /Gmail and Yahoo require less than 0\.3 %/);
});

test('a complaint counts against its lane even before analytics recorded the delivery (it waits while a broadcast is delivered)', async (t) => {
  const env = await startDeliveryEnv(t, { config: { reputation: { min_volume: 0 } } });
  mx(env.dns, 'gmail.test', [{ host: GMAIL_MX, ip: '127.0.0.1' }]);
  const to = Array.from({ length: 20 }, (_, i) => `reader${i}@gmail.test`);
  const id = await send(env, { to });
  await eventually('delivery', () => messageStatus(env.ph, id) === 'delivered', 30_000);
  const { services, kernel } = env.ph.server;
  await services.analytics.catchUp();
  // As if the analytics projection had not yet read the delivery: it records no lane for it.
  await kernel.db.deleteFrom('analytics_recipients').where('message_id', '=', id).execute();
  await appendComplaint(env, id, to, 'reader7@gmail.test');

  const body = await reputation(env);
  const lane = body.lanes.find((l: { name: string }) => l.name === 'gmail');
  t.is(lane.windows[0].complained, 1, JSON.stringify(body.lanes));
  t.falsy(
    body.lanes.find((l: { name: string }) => l.name === 'unknown'),
    'nothing counted against an unknown lane',
  );
});

test('a window below min_volume does not decide the state, and test sends are never counted', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'gmail.test', [{ host: GMAIL_MX, ip: '127.0.0.1' }]);
  env.peer.rcptReply('gone@gmail.test', 550, '5.1.1 User unknown');
  const id = await send(env, { to: ['ann@gmail.test', 'gone@gmail.test'] });
  await eventually('delivery', () => messageStatus(env.ph, id) === 'partially_delivered', 30_000);
  const testKey = await env.ph.createKey(env.ph.owner.projectId, ['full_access'], 'test');
  const sandbox = await send(env, { to: ['bounce@posthorn.test'] }, testKey);
  await eventually('the test bounce', () => messageStatus(env.ph, sandbox) === 'bounced', 30_000);

  const body = await reputation(env);
  const [domain] = body.domains;
  t.like(domain.windows[0], {
    delivered: 1,
    bounced: 1,
    hard_bounced: 1,
    low_volume: true,
    state: 'at_risk',
  });
  t.is(domain.state, 'healthy', 'two outcomes decide nothing below the default min_volume of 100');
  t.false(body.lanes.some((l: { name: string }) => l.name === 'sandbox'));
});

test('GET /v1/reputation needs reputation:read and shows only the project’s own traffic', async (t) => {
  const env = await startDeliveryEnv(t);
  const key = await env.ph.createKey(env.ph.owner.projectId, ['emails:send']);
  const refused = await env.ph.request('GET', '/v1/reputation', { key });
  t.is(refused.status, 403);
  t.regex(refused.body.error, /reputation:read/);
  const other = await env.ph.bootstrap();
  const body = await reputation(env, other.apiKey);
  t.deepEqual(body.domains, []);
  t.is(body.state, 'healthy');
});
