import test from 'ava';
import { dayNumber, dayString } from '../../src/analytics/days.js';
import { type Posthorn, startPosthorn } from '../helpers/server.js';
import { at, recorder, report } from './helpers.js';

async function knownTraffic(ph: Posthorn) {
  const r = recorder(ph);
  // Two days ago: three recipients, all delivered.
  const m1 = r.message(at(2));
  await r.add('email.sent', m1, null, at(2), { to: ['Ann <A@gmail.com>', 'b@outlook.com'] });
  await r.add('email.delivered', m1, 'a@gmail.com', at(2, 1000), { lane: 'gmail', latency_ms: 1000 });
  await r.add('email.delivered', m1, 'b@outlook.com', at(2, 3000), { lane: 'outlook', latency_ms: 3000 });
  await r.add('email.opened', m1, 'a@gmail.com', at(2, 60_000), { machine: false });
  await r.add('email.opened', m1, 'a@gmail.com', at(2, 70_000), {});
  await r.add('email.opened', m1, 'b@outlook.com', at(2, 60_000), {
    machine: true,
    machine_reason: 'apple_mpp',
  });
  await r.add('email.clicked', m1, 'a@gmail.com', at(2, 80_000), {});
  const m2 = r.message(at(2, 10));
  await r.add('email.sent', m2, null, at(2, 10), { to: ['c@gmail.com'] });
  await r.add('email.delivery_delayed', m2, 'c@gmail.com', at(2, 1010), { lane: 'gmail' });
  // No latency_ms: measured from acceptance to the delivered event.
  await r.add('email.delivered', m2, 'c@gmail.com', at(2, 5010), { lane: 'gmail' });
  // Today: a bounce, a delivery that drew a complaint, one still queued, one deferred.
  const m3 = r.message(at(0));
  await r.add('email.sent', m3, null, at(0), { to: ['d@gmail.com', 'e@yahoo.com', 'f@example.org'] });
  await r.add('email.bounced', m3, 'd@gmail.com', at(0, 500), { lane: 'gmail' });
  await r.add('email.delivered', m3, 'e@yahoo.com', at(0, 2000), { lane: 'yahoo', latency_ms: 2000 });
  await r.add('email.complained', m3, 'e@yahoo.com', at(0, 9000), {});
  const m4 = r.message(at(0, 20));
  await r.add('email.sent', m4, null, at(0, 20), { to: ['g@outlook.com'] });
  await r.add('email.delivery_delayed', m4, 'g@outlook.com', at(0, 900), { lane: 'outlook' });
  // Five days ago, outside a 3-day window.
  const m5 = r.message(at(5));
  await r.add('email.sent', m5, null, at(5), { to: ['h@gmail.com'] });
  await r.add('email.delivered', m5, 'h@gmail.com', at(5, 7000), { lane: 'gmail', latency_ms: 7000 });
}

test('the report counts a known set of messages exactly: totals, rates, zero-filled days, providers, medians', async (t) => {
  const ph = await startPosthorn(t);
  await knownTraffic(ph);
  const body = await report(ph, 3);
  t.like(body, {
    days: 3,
    sent: 7,
    delivered: 4,
    bounced: 1,
    deferred: 1,
    complained: 1,
    delivery_rate: 4 / 7,
    bounce_rate: 1 / 7,
    complaint_rate: 1 / 4,
    unique_opens: 1,
    unique_clicks: 1,
    open_rate: 1 / 4,
    click_rate: 1 / 4,
    machine_opens: 1,
    machine_clicks: 0,
    median_delivery_latency_ms: 2500,
  });
  const today = dayNumber(Date.now());
  t.deepEqual(body.daily, [
    {
      day: dayString(today - 2),
      accepted: 3,
      queued: 0,
      delivered: 3,
      bounced: 0,
      deferred: 0,
      complained: 0,
    },
    {
      day: dayString(today - 1),
      accepted: 0,
      queued: 0,
      delivered: 0,
      bounced: 0,
      deferred: 0,
      complained: 0,
    },
    { day: dayString(today), accepted: 4, queued: 1, delivered: 1, bounced: 1, deferred: 1, complained: 1 },
  ]);
  t.deepEqual(body.providers, [
    {
      provider: 'gmail',
      total: 3,
      queued: 0,
      delivered: 2,
      bounced: 1,
      deferred: 0,
      complained: 0,
      median_delivery_latency_ms: 3000,
      delivery_rate: 2 / 3,
    },
    {
      provider: 'outlook',
      total: 2,
      queued: 0,
      delivered: 1,
      bounced: 0,
      deferred: 1,
      complained: 0,
      median_delivery_latency_ms: 3000,
      delivery_rate: 1 / 2,
    },
    {
      provider: 'unrouted',
      total: 1,
      queued: 1,
      delivered: 0,
      bounced: 0,
      deferred: 0,
      complained: 0,
      median_delivery_latency_ms: 0,
      delivery_rate: 0,
    },
    {
      provider: 'yahoo',
      total: 1,
      queued: 0,
      delivered: 1,
      bounced: 0,
      deferred: 0,
      complained: 1,
      median_delivery_latency_ms: 2000,
      delivery_rate: 1,
    },
  ]);

  const week = await report(ph, 7);
  t.is(week.daily.length, 7);
  t.is(week.sent, 8);
  t.is(week.median_delivery_latency_ms, 3000);
  const gmail = week.providers.find((p: { provider: string }) => p.provider === 'gmail');
  t.like(gmail, { total: 4, delivered: 3, median_delivery_latency_ms: 5000 });
});

test('an empty window reports zeros, rates of 0, one entry per day and no providers', async (t) => {
  const ph = await startPosthorn(t);
  const body = await report(ph);
  t.like(body, {
    days: 30,
    sent: 0,
    delivered: 0,
    bounced: 0,
    deferred: 0,
    complained: 0,
    delivery_rate: 0,
    bounce_rate: 0,
    complaint_rate: 0,
    open_rate: 0,
    click_rate: 0,
    median_delivery_latency_ms: 0,
  });
  t.is(body.daily.length, 30);
  t.is(body.daily.at(-1).day, new Date().toISOString().slice(0, 10));
  t.true(body.daily.every((d: Record<string, unknown>) => d.accepted === 0 && d.delivered === 0));
  t.deepEqual(body.providers, []);
  t.is((await report(ph, 1)).daily.length, 1);
  t.is((await report(ph, 90)).daily.length, 90);
});

test('every recipient counts (to, cc and bcc), once, and replayed events change nothing', async (t) => {
  const ph = await startPosthorn(t);
  const r = recorder(ph);
  const m = r.message(at(0));
  await r.add('email.sent', m, null, at(0), {
    to: ['x@a.test'],
    cc: ['y@a.test'],
    bcc: ['z@a.test', 'X@A.test'],
  });
  await r.add('email.sent', m, null, at(0), { to: ['x@a.test'] });
  await r.add('email.delivered', m, 'x@a.test', at(0, 100), { lane: 'default', latency_ms: 100 });
  await r.add('email.delivered', m, 'x@a.test', at(0, 200), { lane: 'default', latency_ms: 999 });
  const body = await report(ph, 1);
  t.like(body, { sent: 3, delivered: 1, median_delivery_latency_ms: 100 });
  t.like(body.daily[0], { accepted: 3, queued: 2, delivered: 1 });
});

test('a scheduled message counts on its acceptance day and its latency runs from its release', async (t) => {
  const ph = await startPosthorn(t);
  const r = recorder(ph);
  const m = r.message(at(1));
  await r.add('email.scheduled', m, null, at(1), {
    to: ['s@a.test'],
    scheduled_at: new Date(at(0)).toISOString(),
  });
  let body = await report(ph, 2);
  t.like(body.daily[0], { accepted: 1, queued: 1 });
  await r.add('email.sent', m, null, at(0), { to: ['s@a.test'] });
  await r.add('email.delivered', m, 's@a.test', at(0, 4321), { lane: 'default' });
  body = await report(ph, 2);
  t.like(body.daily[0], { accepted: 1, queued: 0, delivered: 1 });
  t.like(body.daily[1], { accepted: 0 });
  t.is(body.median_delivery_latency_ms, 4321);
});

test('projects see only their own numbers', async (t) => {
  const ph = await startPosthorn(t);
  await knownTraffic(ph);
  const other = await ph.bootstrap();
  t.is((await report(ph, 3, other.apiKey)).sent, 0);
  t.is((await report(ph, 3)).sent, 7);
});

test('days must be 1 to 90 and the key needs analytics:read', async (t) => {
  const ph = await startPosthorn(t);
  for (const days of ['0', '91', 'abc', '2.5']) {
    t.is((await ph.request('GET', `/v1/analytics?days=${days}`)).status, 400, days);
  }
  const key = await ph.createKey(ph.owner.projectId, ['emails:read']);
  const denied = await ph.request('GET', '/v1/analytics', { key });
  t.is(denied.status, 403);
  t.regex(denied.body.error, /analytics:read/);
  const allowed = await ph.createKey(ph.owner.projectId, ['analytics:read']);
  t.is((await ph.request('GET', '/v1/analytics', { key: allowed })).status, 200);
});

test('lane and latency are read from the event object the delivery engine writes (data.delivery, data.bounce)', async (t) => {
  const ph = await startPosthorn(t);
  const r = recorder(ph);
  const m = r.message(at(0));
  await r.add('email.sent', m, null, at(0), { to: ['p@gmail.com', 'q@gmail.com'] });
  await r.add('email.delivered', m, 'p@gmail.com', at(0, 800), {
    delivery: { recipient: 'p@gmail.com', lane: 'gmail', latency_ms: 750, attempt: 1 },
  });
  await r.add('email.bounced', m, 'q@gmail.com', at(0, 900), {
    bounce: { recipient: 'q@gmail.com', lane: 'gmail', type: 'hard' },
  });
  const body = await report(ph, 1);
  t.deepEqual(
    body.providers.map((p: { provider: string; total: number }) => [p.provider, p.total]),
    [['gmail', 2]],
  );
  t.like(body.providers[0], {
    delivered: 1,
    bounced: 1,
    median_delivery_latency_ms: 750,
    delivery_rate: 0.5,
  });
});
