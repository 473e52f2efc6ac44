import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startPosthorn } from '../helpers/server.js';
import { createEndpoint, deliveries, emit } from './helpers.js';
import { eventually, startReceiver } from './receiver.js';

const open = { allow_http: true, allow_private_targets: true };

test('a subscribed event arrives signed per Standard Webhooks, verified with the standardwebhooks package', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  const receiver = await startReceiver(t);
  const endpoint = await createEndpoint(ph, receiver.url, ['email.delivered']);
  await emit(ph, 'email.bounced');
  const event = await emit(ph, 'email.delivered', { lane: 'gmail' });
  const [request] = await receiver.waitFor(1);
  t.truthy(request);
  const verified = new Webhook(endpoint.secret).verify(
    request!.body,
    request!.headers as Record<string, string>,
  );
  t.deepEqual(verified, JSON.parse(JSON.stringify(event)));
  const body = JSON.parse(request!.body);
  t.deepEqual(Object.keys(body), ['id', 'type', 'created_at', 'data']);
  t.is(body.type, 'email.delivered');
  t.regex(String(request!.headers['webhook-id']), /^whm_/);
  t.regex(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
  t.true(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000) < 10);
  t.is(request!.headers['content-type'], 'application/json');
  // The bounced event was not subscribed to: nothing else arrives.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(receiver.received.length, 1);
  const log = await deliveries(ph, endpoint.id);
  t.is(log.data.length, 1);
  t.like(log.data[0], {
    status: 'succeeded',
    response_status: 204,
    attempt: 1,
    trigger: 'event',
    event_id: event.id,
  });
});

test('events from before an endpoint existed are not sent to it', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  const receiver = await startReceiver(t);
  await emit(ph, 'email.sent');
  await new Promise((resolve) => setTimeout(resolve, 50));
  await createEndpoint(ph, receiver.url);
  const later = await emit(ph, 'email.sent');
  const [request] = await receiver.waitFor(1);
  t.is(JSON.parse(request!.body).id, later.id);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(receiver.received.length, 1);
});

test('a 500 is retried after the first delay with the same webhook-id, and both attempts are logged', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { ...open, retry_schedule: ['1s', '1s'] } });
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) => (index === 0 ? { status: 500, body: 'boom' } : { status: 200 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph);
  const [first, second] = await receiver.waitFor(2);
  t.is(first!.headers['webhook-id'], second!.headers['webhook-id']);
  t.is(first!.body, second!.body);
  t.true(second!.at - first!.at >= 950, `retried after ${second!.at - first!.at} ms`);
  const log = await eventually(async () => {
    const page = await deliveries(ph, endpoint.id);
    return page.data.length === 2 && page.data[0].status === 'succeeded' ? page : undefined;
  });
  const [retry, original] = log.data;
  t.like(original, {
    attempt: 1,
    status: 'failed',
    response_status: 500,
    response_body: 'boom',
    error: 'HTTP 500',
  });
  t.like(retry, { attempt: 2, status: 'succeeded', trigger: 'retry', previous_attempt_id: original.id });
  t.is(retry.webhook_id, original.webhook_id);
});

test('Retry-After pushes a retry later than the schedule', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { ...open, retry_schedule: ['200ms'] } });
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) =>
    index === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 },
  );
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph);
  const [first, second] = await receiver.waitFor(2);
  t.true(second!.at - first!.at >= 1950, `retried after ${second!.at - first!.at} ms`);
  const log = await deliveries(ph, endpoint.id);
  t.is(log.data.at(-1).response_headers['retry-after'], '2');
});

test('a 410 disables the endpoint and stops its deliveries', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { ...open, retry_schedule: ['200ms'] } });
  const receiver = await startReceiver(t);
  receiver.reply(() => ({ status: 410 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph);
  await receiver.waitFor(1);
  const disabled = await eventually(async () => {
    const res = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
    return res.body.status === 'disabled' ? res.body : undefined;
  });
  t.is(disabled.disabled_reason, 'gone');
  await emit(ph);
  await new Promise((resolve) => setTimeout(resolve, 600));
  t.is(receiver.received.length, 1);
  const log = await deliveries(ph, endpoint.id);
  t.is(log.data.length, 1);
  t.like(log.data[0], { status: 'failed', response_status: 410 });
});

test('a receiver slower than webhooks.timeout is recorded as a timeout and retried', async (t) => {
  const ph = await startPosthorn(t, {
    webhooks: { ...open, timeout: '1s', retry_schedule: ['200ms', '200ms', '200ms'] },
  });
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) => (index === 0 ? { status: 200, delayMs: 5000 } : { status: 200 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph);
  await receiver.waitFor(2);
  const log = await eventually(async () => {
    const page = await deliveries(ph, endpoint.id);
    return page.data[0]?.status === 'succeeded' ? page : undefined;
  });
  const original = log.data.find((a) => a.attempt === 1);
  t.like(original, { status: 'failed', response_status: null, error: 'timed out after 1000 ms' });
  t.true(original.duration_ms >= 990 && original.duration_ms < 4000, `duration ${original.duration_ms}`);
});

test('a host that resolves to loopback is refused unless webhooks.allow_private_targets', async (t) => {
  const ph = await startPosthorn(t, {
    webhooks: { allow_http: true, allow_private_targets: false, retry_schedule: ['5m'] },
  });
  const receiver = await startReceiver(t);
  const literal = await ph.request('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['*'] } });
  t.is(literal.status, 400);
  const endpoint = await createEndpoint(ph, `http://localhost:${receiver.port}/hook`);
  await emit(ph);
  const log = await eventually(async () => {
    const page = await deliveries(ph, endpoint.id);
    return page.data.some((a) => a.status === 'failed') ? page : undefined;
  });
  const failed = log.data.find((a) => a.status === 'failed');
  t.regex(failed.error, /^refused: localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/);
  t.is(failed.response_status, null);
  t.is(receiver.received.length, 0);
  // A refusal is a failure like any other: it is retried on the schedule.
  t.like(log.data[0], { status: 'pending', attempt: 2 });
});

test('replay sends the original body byte for byte with a fresh timestamp and signature', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  const receiver = await startReceiver(t);
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph, 'email.delivered', { subject: 'Ünïcode ✓ "quoted"', tags: { b: '2', a: '1' } });
  const [original] = await receiver.waitFor(1);
  const log = await eventually(async () => {
    const page = await deliveries(ph, endpoint.id);
    return page.data[0]?.status === 'succeeded' ? page : undefined;
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const replay = await ph.request('POST', `/v1/webhooks/${endpoint.id}/deliveries/${log.data[0].id}/replay`);
  t.is(replay.status, 202, replay.text);
  t.like(replay.body, { trigger: 'replay', replay_of: log.data[0].id, status: 'pending' });
  const [, again] = await receiver.waitFor(2);
  t.is(Buffer.compare(Buffer.from(again!.body), Buffer.from(original!.body)), 0);
  t.is(again!.headers['webhook-id'], original!.headers['webhook-id']);
  t.not(again!.headers['webhook-timestamp'], original!.headers['webhook-timestamp']);
  t.not(again!.headers['webhook-signature'], original!.headers['webhook-signature']);
  t.notThrows(() =>
    new Webhook(endpoint.secret).verify(again!.body, again!.headers as Record<string, string>),
  );
  const detail = await eventually(async () => {
    const res = await ph.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${replay.body.id}`);
    return res.body.status === 'succeeded' ? res.body : undefined;
  });
  t.is(detail.payload, original!.body);
  t.is(detail.replay_of, log.data[0].id);
  t.is((await ph.request('POST', `/v1/webhooks/${endpoint.id}/deliveries/whd_nope/replay`)).status, 404);
});

test('the delivery log keeps timing, only safe headers and the first 2 KB of the body, and pages', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  const receiver = await startReceiver(t);
  receiver.reply(() => ({
    status: 200,
    headers: {
      'content-type': 'text/plain',
      'set-cookie': 'session=secret',
      authorization: 'Bearer leaked',
      'x-internal': 'no',
    },
    body: 'x'.repeat(5000),
  }));
  const endpoint = await createEndpoint(ph, receiver.url);
  for (let i = 0; i < 5; i++) await emit(ph);
  await receiver.waitFor(5);
  const all = await eventually(async () => {
    const page = await deliveries(ph, endpoint.id);
    return page.data.length === 5 && page.data.every((a) => a.status === 'succeeded') ? page : undefined;
  });
  const attempt = all.data[0];
  t.deepEqual(Object.keys(attempt.response_headers).sort(), ['content-type', 'date']);
  t.is(attempt.response_body.length, 2048);
  t.is(attempt.url, receiver.url);
  t.true(Number.isInteger(attempt.duration_ms) && attempt.duration_ms >= 0);
  t.truthy(Date.parse(attempt.requested_at));
  t.is(attempt.error, null);
  const ids = all.data.map((a: { id: string }) => a.id);
  t.deepEqual([...ids].sort().reverse(), ids, 'newest first');

  const first = await deliveries(ph, endpoint.id, '?limit=2');
  t.deepEqual(
    first.data.map((a) => a.id),
    ids.slice(0, 2),
  );
  t.true(first.has_more);
  const second = await deliveries(ph, endpoint.id, `?limit=2&after=${ids[1]}`);
  t.deepEqual(
    second.data.map((a) => a.id),
    ids.slice(2, 4),
  );
  const third = await deliveries(ph, endpoint.id, `?limit=2&after=${ids[3]}`);
  t.deepEqual(
    third.data.map((a) => a.id),
    ids.slice(4),
  );
  t.false(third.has_more);

  const one = await ph.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${ids[0]}`);
  t.is(one.status, 200);
  t.is(JSON.parse(one.body.payload).type, 'email.delivered');
  t.is((await ph.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/whd_missing`)).status, 404);
});

test('one slow endpoint does not delay another', async (t) => {
  // The slow endpoint answers nothing while the test runs (its requests would time out only after
  // a minute), so every fast delivery that arrives did not wait for it, however busy the host:
  // the test asserts that order, not a wall-clock figure. The receiver closes its held requests at
  // teardown.
  const ph = await startPosthorn(t, { webhooks: { ...open, timeout: '60s' } });
  const slow = await startReceiver(t);
  slow.reply(() => ({ status: 200, delayMs: 120_000 }));
  const fast = await startReceiver(t);
  await createEndpoint(ph, slow.url);
  await createEndpoint(ph, fast.url);
  for (let i = 0; i < 8; i++) await emit(ph);
  // A budget against a hang only, far below the slow endpoint's timeout.
  await fast.waitFor(8, 30_000);
  t.is(fast.received.length, 8, 'every event reached the fast endpoint while the slow one held its requests');
  t.true(
    slow.received.length <= 4,
    'the slow endpoint has at most per_endpoint_concurrency requests in flight',
  );
});

test('an endpoint failing for webhooks.disable_after is disabled', async (t) => {
  const ph = await startPosthorn(t, {
    webhooks: {
      ...open,
      disable_after: '1s',
      retry_schedule: ['300ms', '300ms', '300ms', '300ms', '300ms', '300ms'],
    },
  });
  const receiver = await startReceiver(t);
  receiver.reply(() => ({ status: 500 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph);
  const disabled = await eventually(async () => {
    const res = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
    return res.body.status === 'disabled' ? res.body : undefined;
  });
  t.is(disabled.disabled_reason, 'failing');
  const count = receiver.received.length;
  t.true(count >= 2, `${count} attempts`);
  await new Promise((resolve) => setTimeout(resolve, 700));
  t.is(receiver.received.length, count, 'a disabled endpoint gets nothing more');
  // Re-enabling resumes the retry that was waiting.
  await ph.request('PATCH', `/v1/webhooks/${endpoint.id}`, { body: { status: 'enabled' } });
  receiver.reply(() => ({ status: 200 }));
  const all = await receiver.waitFor(count + 1);
  t.is(all[count]?.body, all[0]?.body, 'the retry that was waiting is the same event, delivered');
  const enabled = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
  t.is(enabled.body.status, 'enabled');
});

test('after a secret rotation deliveries carry both signatures until the overlap ends', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  const receiver = await startReceiver(t);
  const endpoint = await createEndpoint(ph, receiver.url);
  const rotated = await ph.request('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`);
  t.is(rotated.status, 200, rotated.text);
  t.regex(rotated.body.secret, /^whsec_/);
  t.not(rotated.body.secret, endpoint.secret);
  t.true(Date.parse(rotated.body.previous_secret_expires_at) - Date.now() > 23 * 3_600_000);
  await emit(ph);
  const [request] = await receiver.waitFor(1);
  const headers = request!.headers as Record<string, string>;
  t.is(headers['webhook-signature']!.split(' ').length, 2);
  t.notThrows(() => new Webhook(endpoint.secret).verify(request!.body, headers));
  t.notThrows(() => new Webhook(rotated.body.secret).verify(request!.body, headers));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('one failure after a quiet gap following an old outage starts a new streak instead of disabling', async (t) => {
  // A failure continues the streak only within the longest retry delay (200 ms) plus 2 s. The
  // outage (a failure and its retry 200 ms later) must stay shorter than disable_after even on a
  // busy host, and the failure after the gap comes more than disable_after after the outage began:
  // a streak wrongly continued across the gap would disable the endpoint.
  const ph = await startPosthorn(t, {
    webhooks: { ...open, disable_after: '3s', retry_schedule: ['200ms'] },
  });
  const receiver = await startReceiver(t);
  receiver.reply(() => ({ status: 503 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph); // the outage: the attempt and its one retry fail, the delivery is given up
  await receiver.waitFor(2);
  await eventually(async () => {
    const log = await deliveries(ph, endpoint.id);
    return log.data.length === 2 && log.data.every((a) => a.status === 'failed') ? true : undefined;
  });
  const afterOutage = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
  t.is(afterOutage.body.status, 'enabled', 'the outage was shorter than disable_after');
  // The receiver recovers; no events for longer than disable_after and the streak gap.
  await sleep(3000);
  receiver.reply((_request, index) => (index === 2 ? { status: 502 } : { status: 200 }));
  await emit(ph);
  const [, , transient, retried] = await receiver.waitFor(4);
  t.is(retried!.body, transient!.body, 'the transient failure was retried');
  const res = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
  t.like(res.body, { status: 'enabled', disabled_reason: null });
});

test('changing the URL of a failing endpoint starts its failing streak again', async (t) => {
  // Timed by the receivers' own clock, not by counts of requests, so a slow host cannot reorder the
  // story: the old URL fails, the URL changes at once, and the new URL keeps failing until more than
  // disable_after has passed since the old URL's first failure. Only a reset streak survives that.
  // disable_after leaves a busy host seconds to change the URL after the first retry (the check
  // below says so if it did not).
  const disableAfterMs = 5000;
  const ph = await startPosthorn(t, {
    webhooks: {
      ...open,
      disable_after: `${disableAfterMs / 1000}s`,
      retry_schedule: Array.from({ length: 40 }, () => '300ms'),
    },
  });
  let firstFailureAt = 0;
  const old = await startReceiver(t);
  old.reply(() => {
    firstFailureAt ||= Date.now();
    return { status: 500 };
  });
  let succeededAt = 0;
  const fixed = await startReceiver(t);
  fixed.reply(() => {
    if (Date.now() < firstFailureAt + disableAfterMs + 500) return { status: 500 };
    succeededAt ||= Date.now();
    return { status: 200 };
  });
  const endpoint = await createEndpoint(ph, old.url);
  await emit(ph);
  await old.waitFor(2);
  const patched = await ph.request('PATCH', `/v1/webhooks/${endpoint.id}`, { body: { url: fixed.url } });
  t.is(patched.status, 200);
  t.true(Date.now() - firstFailureAt < disableAfterMs, 'the URL changed before the old streak could disable');
  for (const deadline = Date.now() + 20_000; succeededAt === 0 && Date.now() < deadline; ) await sleep(100);
  t.true(succeededAt > 0, 'the new URL was still being called after disable_after had passed');
  const res = await ph.request('GET', `/v1/webhooks/${endpoint.id}`);
  t.like(res.body, { status: 'enabled', disabled_reason: null });
});
